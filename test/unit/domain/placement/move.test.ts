import {
  checkMove,
  placementOfSettings,
  placeStageProblem,
  type MoveCheckInput,
} from '../../../../src/domain/placement';
import { disk, GiB, local, node, shared, vm } from './fixtures';

const web01 = vm('web01', { memoryBytes: 8 * GiB, disks: [disk('Hard disk 1', 20), disk('Hard disk 2', 40)] });
const from = {
  node: 'pve1',
  disks: [
    { label: 'Hard disk 1', storage: 'local-lvm' },
    { label: 'Hard disk 2', storage: 'nfs-images' },
  ],
};
const input = (overrides: Partial<MoveCheckInput> = {}): MoveCheckInput => ({
  vm: web01,
  from,
  request: { node: 'pve2' },
  nodes: [node('pve1'), node('pve2', { committedBytes: 16 * GiB }), node('pve3', { online: false })],
  storages: [
    local('local-lvm', { pve1: 500, pve2: 500 }),
    shared('nfs-images', ['pve1', 'pve2', 'pve3'], 1000),
    local('ssd', { pve2: 30 }),
  ],
  ...overrides,
});

describe('checkMove (ferry place)', () => {
  it('moves to a node that holds the VM, disks keeping their storages, with the memory commitment after', () => {
    expect(checkMove(input())).toEqual({
      ok: true,
      to: {
        node: 'pve2',
        disks: from.disks,
        memory: { committedAfterBytes: 24 * GiB, limitBytes: 64 * GiB, memoryBytes: 64 * GiB },
      },
    });
  });

  it('puts every disk on --storage', () => {
    const moved = checkMove(input({ request: { node: 'pve2', storage: 'nfs-images' } }));
    expect(moved.ok && moved.to.disks.map((d) => d.storage)).toEqual(['nfs-images', 'nfs-images']);
  });

  it('refuses a node that cannot hold its memory, with the numbers', () => {
    const result = checkMove(input({ nodes: [node('pve1'), node('pve2', { committedBytes: 60 * GiB })] }));
    expect(result).toMatchObject({
      ok: false,
      refusals: [{ code: 'placement-memory', resource: 'memory on pve2', need: 8 * GiB, room: 4 * GiB }],
    });
    expect(!result.ok && result.refusals[0]!.reason).toBe(
      'memory on pve2: needs 8 GiB, 4 GiB free (limit 64 GiB = 1.0 × 64 GiB; 60 GiB committed)',
    );
  });

  it('honours maxMemoryCommit', () => {
    const result = checkMove(input({ nodes: [node('pve2', { committedBytes: 16 * GiB })], maxMemoryCommit: 0.3 }));
    expect(result).toMatchObject({
      ok: false,
      refusals: [{ code: 'placement-memory', need: 8 * GiB, room: Math.floor(64 * GiB * 0.3) - 16 * GiB }],
    });
  });

  it('refuses a storage without room on the new node, and one the node does not reach', () => {
    const full = checkMove(input({ request: { node: 'pve2', storage: 'ssd' } }));
    expect(full).toMatchObject({
      ok: false,
      refusals: [{ code: 'placement-storage-room', resource: 'ssd on pve2', need: 60 * GiB, room: 30 * GiB }],
    });
    const unreachable = checkMove(input({ request: { node: 'pve1', storage: 'ssd' } }));
    expect(unreachable).toMatchObject({ ok: false, refusals: [{ code: 'placement-storage-unreachable' }] });
  });

  it('refuses an unknown, offline or unlisted node, and a move to where it is', () => {
    const reason = (i: MoveCheckInput) => {
      const r = checkMove(i);
      return r.ok ? 'ok' : r.refusals.map((x) => x.reason).join('; ');
    };
    expect(reason(input({ request: { node: 'pve9' } }))).toBe(
      'pve9 is not a node of the cluster (nodes: pve1, pve2, pve3)',
    );
    expect(reason(input({ request: { node: 'pve3' } }))).toBe('pve3 is offline');
    expect(reason(input({ allowedNodes: ['pve1', 'pve3'] }))).toBe('pve2 is not in migration.nodes (pve1, pve3)');
    expect(reason(input({ request: { node: 'pve1' } }))).toBe('web01 is already on pve1');
    expect(reason(input({ request: { node: 'pve1', storage: 'local-lvm' } }))).toBe('ok');
  });
});

describe('placeStageProblem', () => {
  const free = { decided: false, moving: false, known: true };
  it('takes a move before the shell exists and at the approval gate', () => {
    for (const stage of ['validate', 'networks', 'awaiting-approval'])
      expect(placeStageProblem(stage, free)).toBeUndefined();
  });
  it('refuses it otherwise, saying why', () => {
    expect(placeStageProblem('awaiting-approval', { ...free, decided: true })).toMatch(/already decided/);
    expect(placeStageProblem('awaiting-approval', { ...free, moving: true })).toMatch(/another placement move/);
    expect(placeStageProblem('validate', { ...free, known: false })).toMatch(/not read from vCenter yet/);
    expect(placeStageProblem('shell', free)).toMatch(/shell is being built/);
    expect(placeStageProblem('relocate', free)).toMatch(/storage vMotion/);
    expect(placeStageProblem('shutdown', free)).toBe(
      'the VM no longer waits before its cutover (stage shutdown); its placement is fixed',
    );
  });
});

describe('placementOfSettings', () => {
  it('names each disk with the storage its settings import it onto', () => {
    expect(
      placementOfSettings({ node: 'pve1', targetStorage: 'local-lvm', diskStorages: { 'Hard disk 2': 'nfs-images' } }, [
        'Hard disk 1',
        'Hard disk 2',
      ]),
    ).toEqual(from);
  });
});
