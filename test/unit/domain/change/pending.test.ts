import { RULES, configAndPending, effectiveConfig, type Baseline } from '../../../../src/domain/change';
import type { RecordInterface } from '../../../../src/domain/provisioning';
import { MAC0, MAC1, configWith, only, planFor } from './fixtures';

const net0 = (edits: Partial<RecordInterface> = {}): RecordInterface => ({
  id: 100,
  name: 'net0',
  enabled: true,
  taggedVlans: [],
  mac: MAC0,
  fields: {},
  ...edits,
});
const net1: RecordInterface = { id: 101, name: 'net1', enabled: true, taggedVlans: [], mac: MAC1, fields: {} };
const NET0 = `virtio=${MAC0},bridge=vmbr0,tag=20`;
const NET1 = `virtio=${MAC1},bridge=vmbr0`;

describe('reading `GET …/pending` (PVE/API2/Qemu.pm vm_pending, GuestHelpers.pm config_with_pending_array)', () => {
  it('splits the rows into the current config, the pending values and deletions, and the digest', () => {
    const read = configAndPending([
      { key: 'digest', value: 'abc123' },
      { key: 'memory', value: 2048, pending: 4096 },
      { key: 'net1', value: NET1, delete: 1 },
      { key: 'scsi1', value: 'local-lvm:vm-9001-disk-2,size=1G', delete: 2 },
      { key: 'net2', pending: NET1 },
      { key: 'cores', value: 2 },
    ]);
    expect(read).toEqual({
      config: { memory: '2048', net1: NET1, scsi1: 'local-lvm:vm-9001-disk-2,size=1G', cores: '2' },
      pending: [
        { key: 'memory', value: '4096' },
        { key: 'net1', delete: 'delete' },
        { key: 'scsi1', delete: 'force' },
        { key: 'net2', value: NET1 },
      ],
      digest: 'abc123',
    });
    expect(effectiveConfig(read)).toEqual({ memory: '4096', cores: '2', net2: NET1 });
  });
});

describe('what Proxmox already holds in pending', () => {
  it('NetBox’s value already pending is not written again (no duplicate write)', () => {
    const plan = planFor(
      { interfaces: [net0({ mtu: 9000 })] },
      { config: configWith({ hotplug: 'disk' }), pending: [{ key: 'net0', value: `${NET0},mtu=9000` }] },
    );
    expect(only(plan, 'net0.mtu')).toMatchObject({
      class: 'at-restart',
      alreadyPending: true,
      to: '9000',
      pending: '9000',
    });
    expect(only(plan, 'net0.mtu')).not.toHaveProperty('from');
    expect(plan.steps.restart).toBeUndefined();
  });

  it('but written again with another change of the same NIC (one pending value per key)', () => {
    const plan = planFor(
      { interfaces: [net0({ mtu: 9000, mode: 'access', untaggedVlan: 30 })] },
      { config: configWith({ hotplug: 'disk' }), pending: [{ key: 'net0', value: `${NET0},mtu=9000` }] },
    );
    expect(plan.changes.map((c) => [c.id, c.class, c.alreadyPending ?? false])).toEqual([
      ['net0.tag', 'at-restart', false],
      ['net0.mtu', 'at-restart', true],
    ]);
    expect(plan.steps.restart?.setNics.net0?.options).toEqual({ bridge: 'vmbr0', tag: '30', mtu: '9000' });
    expect(plan.steps.restart?.changes).toEqual(['net0.tag', 'net0.mtu']);
  });

  it('a pending value that a live change of NetBox’s would retry is sent again (the hotplug is tried anew)', () => {
    const plan = planFor(
      { interfaces: [net0({ mode: 'access', untaggedVlan: 30 })] },
      { pending: [{ key: 'net0', value: `virtio=${MAC0},bridge=vmbr0,tag=30` }] },
    );
    expect(only(plan, 'net0.tag')).toMatchObject({ class: 'live', from: '20', to: '30', pending: '30' });
    expect(only(plan, 'net0.tag')).not.toHaveProperty('alreadyPending');
    expect(plan.steps.live?.changes).toEqual(['net0.tag']);
  });

  it('a pending delete marker on a NIC NetBox still has: reverted without a baseline, reported as a hand change with one', () => {
    const vm = { config: configWith({ net1: NET1 }), pending: [{ key: 'net1', delete: 'delete' as const }] };
    const plan = planFor({ interfaces: [net0(), net1] }, vm);
    expect(only(plan, 'net1')).toMatchObject({
      class: 'live',
      pendingDelete: true,
      operation: { op: 'revert', keys: ['net1'] },
    });
    expect(plan.steps.live?.revert).toEqual(['net1']);
    const baseline: Baseline = { version: 1, applied: { net1: 'present' }, accepted: {} };
    expect(only(planFor({ interfaces: [net0(), net1] }, vm, { baseline }), 'net1')).toMatchObject({
      class: 'reported',
      side: 'proxmox',
    });
  });

  it('a pending delete NetBox agrees with waits for the restart without a new write', () => {
    const vm = {
      config: configWith({ net1: NET1, hotplug: 'disk' }),
      pending: [{ key: 'net1', delete: 'delete' as const }],
    };
    const plan = planFor({ interfaces: [net0()] }, vm);
    expect(only(plan, 'net1')).toMatchObject({ class: 'at-restart', alreadyPending: true });
    expect(plan.steps.restart).toBeUndefined();
  });

  it('a pending value ferry does not want (a hand change waiting for the restart) is dropped without a baseline', () => {
    const plan = planFor({}, { pending: [{ key: 'memory', value: '8192' }] });
    expect(only(plan, 'memory')).toMatchObject({
      class: 'live',
      from: '2048',
      to: '2048',
      pending: '8192',
      rule: RULES.updateVm,
      operation: { op: 'revert', keys: ['memory'] },
    });
  });

  it('a NIC added without hotplug waits in pending; a change to it is written on top of the pending value', () => {
    const vm = { config: configWith({ hotplug: 'disk' }), pending: [{ key: 'net1', value: NET1 }] };
    const same = planFor({ interfaces: [net0(), net1] }, vm);
    expect(same.changes).toMatchObject([{ id: 'net1', class: 'at-restart', alreadyPending: true }]);
    const tagged = planFor({ interfaces: [net0(), { ...net1, mode: 'access', untaggedVlan: 50 }] }, vm);
    expect(only(tagged, 'net1.tag')).toMatchObject({ class: 'at-restart', rule: RULES.hotplugPending });
    expect(tagged.steps.restart?.setNics.net1).toEqual({
      model: 'virtio',
      macaddr: MAC1,
      options: { bridge: 'vmbr0', tag: '50' },
    });
  });

  it('refuses to write a NIC whose pending value holds a hand change the policy reports (the write would replace it)', () => {
    const baseline: Baseline = { version: 1, applied: { 'net0.mtu': null, 'net0.tag': '20' }, accepted: {} };
    const plan = planFor(
      { interfaces: [net0({ mode: 'access', untaggedVlan: 30 })] },
      { config: configWith({ hotplug: 'disk' }), pending: [{ key: 'net0', value: `${NET0},mtu=9000` }] },
      { baseline },
    );
    expect(only(plan, 'net0.mtu')).toMatchObject({ class: 'reported', side: 'proxmox' });
    const tag = only(plan, 'net0.tag');
    expect(tag).toMatchObject({ class: 'refused', rule: RULES.updateVm });
    expect(tag.why).toContain('net0.mtu');
    expect(plan.steps.live).toBeUndefined();
  });

  it('does not grow or move a disk with a pending value: the pending drive would undo it at the next start (vmconfig_apply_pending)', () => {
    const vm = { pending: [{ key: 'scsi0', value: 'local-lvm:vm-9001-disk-1,discard=on,iothread=1,ssd=1,size=20G' }] };
    const plan = planFor({ diskMB: 30_720 }, vm);
    expect(only(plan, 'scsi0.size')).toMatchObject({ class: 'refused', rule: RULES.applyPending });
  });

  it('a stopped VM applies every pending change with any write: the plan says so', () => {
    const plan = planFor({ memoryMB: 4096 }, { power: 'stopped', pending: [{ key: 'tablet', value: '0' }] });
    expect(plan.notes).toEqual([
      "VM 9001 is stopped with pending changes (tablet): Proxmox applies all of them with ferry's first write",
    ]);
    expect(planFor({}, { power: 'stopped', pending: [{ key: 'tablet', value: '0' }] }).notes).toEqual([]);
  });
});
