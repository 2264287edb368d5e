import {
  describeChange,
  describeOutcome,
  stepRequests,
  verifyChanges,
  type ChangePlan,
  type ReadBack,
} from '../../../../src/domain/change';
import type { RecordDisk, RecordInterface } from '../../../../src/domain/provisioning';
import { GIB, MAC0, MAC1, configWith, only, planFor } from './fixtures';

const scsi0: RecordDisk = { id: 1, name: 'scsi0', sizeMB: 20_480, fields: {} };
const net0 = (edits: Partial<RecordInterface> = {}): RecordInterface => ({
  id: 100,
  name: 'net0',
  enabled: true,
  taggedVlans: [],
  mac: MAC0,
  fields: {},
  ...edits,
});
const hot = { hotplug: 'network,disk,memory', numa: '1' };
const all = (plan: ChangePlan) => new Set(plan.changes.map((c) => c.id));
const readBack = (edits: Record<string, string | undefined>, extra: Partial<ReadBack> = {}): ReadBack => ({
  config: configWith({ ...hot, ...edits }),
  pending: [],
  ...extra,
});

describe('operations grouped into few requests', () => {
  it('live keys in one write, restart keys in another, one request per move and resize', () => {
    const plan = planFor(
      {
        memoryMB: 4096,
        disks: [
          { ...scsi0, sizeMB: 30_720 },
          { id: 2, name: 'scsi1', sizeMB: 10_240, fields: { options: 'ssd=1' } },
          { id: 3, name: 'scsi2', sizeMB: 5120, fields: { storage: 'fast' } },
        ],
        interfaces: [
          net0({ mode: 'access', untaggedVlan: 30 }),
          { id: 101, name: 'net1', enabled: true, taggedVlans: [], fields: {} },
        ],
      },
      {
        config: configWith({
          ...hot,
          scsi1: 'local-lvm:vm-9001-disk-2,size=10G',
          scsi2: 'local-lvm:vm-9001-disk-3,discard=on,iothread=1,size=5G',
          scsi3: 'local-lvm:vm-9001-disk-4,size=1G',
        }),
      },
    );
    expect(plan.changes.map((c) => [c.id, c.class])).toEqual([
      ['memory', 'live'],
      ['scsi0.size', 'live'],
      ['scsi1.ssd', 'at-restart'],
      ['scsi2.storage', 'move'],
      ['scsi3', 'detach'],
      ['net0.tag', 'live'],
      ['net1', 'live'],
    ]);
    expect(plan.steps.live).toMatchObject({
      changes: ['memory', 'scsi3', 'net0.tag', 'net1'],
      memory: 4096,
      detach: ['scsi3'],
    });
    expect(plan.steps.restart).toMatchObject({
      changes: ['scsi1.ssd'],
      diskOptions: { scsi1: { set: { ssd: '1' }, unset: [] } },
    });
    expect(plan.steps.moves.map((m) => m.change)).toEqual(['scsi2.storage']);
    expect(plan.steps.resizes.map((r) => r.change)).toEqual(['scsi0.size']);
    expect(stepRequests(plan.steps)).toBe(4);
  });

  it('one live field costs one request; nothing to do costs none', () => {
    expect(stepRequests(planFor({ memoryMB: 4096 }, { config: configWith(hot) }).steps)).toBe(1);
    expect(stepRequests(planFor().steps)).toBe(0);
  });

  it('needs-stop keys go in a write of their own, sent while the VM is stopped', () => {
    const plan = planFor({ memoryMB: 2048 }, { config: configWith({ ...hot, memory: '4096' }) });
    expect(plan.steps).toMatchObject({ stopped: { changes: ['memory'], memory: 2048 }, moves: [], resizes: [] });
    expect(plan.steps.live).toBeUndefined();
  });
});

describe('verification from the read-back (and the guest’s own view)', () => {
  const memoryUp = () => planFor({ memoryMB: 4096 }, { config: configWith(hot) });

  it('a live change Proxmox has, with nothing pending: applied-live', () => {
    const plan = memoryUp();
    expect(verifyChanges({ plan, sent: all(plan), readBack: readBack({ memory: '4096' }) })).toEqual([
      { id: 'memory', outcome: 'applied-live', detail: 'Proxmox has it, nothing pending' },
    ]);
  });

  it('a change called live that sits in pending has failed', () => {
    const plan = memoryUp();
    const [outcome] = verifyChanges({
      plan,
      sent: all(plan),
      readBack: readBack({}, { pending: [{ key: 'memory', value: '4096' }] }),
    });
    expect(outcome).toEqual({
      id: 'memory',
      outcome: 'failed',
      detail: 'called live, but it sits in pending (now 2048, pending 4096)',
    });
  });

  it('Proxmox with another value altogether: failed, saying what it has', () => {
    const plan = planFor({ diskMB: 30_720 });
    const [outcome] = verifyChanges({ plan, sent: all(plan), readBack: { config: configWith(), pending: [] } });
    expect(outcome).toEqual({ id: 'scsi0.size', outcome: 'failed', detail: 'Proxmox has 20G; wanted 30G' });
  });

  it('a restart change: pending-restart after the write, applied-after-restart once the VM started again, held while not sent', () => {
    const plan = planFor({ memoryMB: 4096 });
    const pendingBack = { config: configWith(), pending: [{ key: 'memory', value: '4096' }] };
    expect(verifyChanges({ plan, sent: all(plan), readBack: pendingBack })[0]!.outcome).toBe('pending-restart');
    expect(
      verifyChanges({
        plan,
        sent: all(plan),
        readBack: { config: configWith({ memory: '4096' }), pending: [] },
        restarted: true,
      })[0]!.outcome,
    ).toBe('applied-after-restart');
    expect(verifyChanges({ plan, sent: new Set(), readBack: { config: configWith(), pending: [] } })[0]).toMatchObject({
      outcome: 'held',
    });
  });

  it('refused and reported changes keep their reasons', () => {
    const plan = planFor({ diskMB: 10_240 });
    expect(verifyChanges({ plan, sent: all(plan), readBack: { config: configWith(), pending: [] } })[0]).toMatchObject({
      outcome: 'refused',
      detail: only(plan, 'scsi0.size').why,
    });
  });

  it('a moved disk’s source and a detached disk’s volume must remain as unusedN', () => {
    const moved = planFor({ disks: [{ ...scsi0, fields: { storage: 'fast' } }] });
    const movedDisk = 'fast:vm-9001-disk-0,discard=on,iothread=1,size=20G';
    expect(
      verifyChanges({
        plan: moved,
        sent: all(moved),
        readBack: { config: configWith({ scsi0: movedDisk, unused0: 'local-lvm:vm-9001-disk-1' }), pending: [] },
      })[0]!.outcome,
    ).toBe('applied-live');
    expect(
      verifyChanges({
        plan: moved,
        sent: all(moved),
        readBack: { config: configWith({ scsi0: movedDisk }), pending: [] },
      })[0],
    ).toEqual({
      id: 'scsi0.storage',
      outcome: 'failed',
      detail: 'moved, but the source local-lvm:vm-9001-disk-1 is not kept as unusedN',
    });
    const withScsi1 = configWith({ scsi1: 'local-lvm:vm-9001-disk-2,size=1G', hotplug: 'network' });
    const detached = planFor({ disks: [scsi0] }, { config: withScsi1 });
    const waiting = { config: withScsi1, pending: [{ key: 'scsi1', delete: 'delete' as const }] };
    expect(verifyChanges({ plan: detached, sent: all(detached), readBack: waiting })[0]!.outcome).toBe(
      'pending-restart',
    );
    const after = { config: configWith({ unused0: 'local-lvm:vm-9001-disk-2' }), pending: [] };
    expect(verifyChanges({ plan: detached, sent: all(detached), readBack: after, restarted: true })[0]!.outcome).toBe(
      'applied-after-restart',
    );
  });

  it('the guest’s view: memory online, the disk’s size in the guest, the NIC’s MAC carrying NetBox’s address', () => {
    const plan = memoryUp();
    const guest = (memoryMiB: number) => readBack({ memory: '4096' }, { guest: { memoryMiB } });
    expect(verifyChanges({ plan, sent: all(plan), readBack: guest(3900) })[0]!.outcome).toBe('applied-live');
    expect(verifyChanges({ plan, sent: all(plan), readBack: guest(1900) })[0]).toMatchObject({
      outcome: 'failed',
      detail: 'the guest sees 1900 MiB, no more than the 2048 MiB before: the new memory is not online',
    });
    const grown = planFor({ diskMB: 30_720 });
    const grownBack = (bytes: number) => ({
      config: configWith({ scsi0: 'local-lvm:vm-9001-disk-1,discard=on,iothread=1,size=30G' }),
      pending: [],
      guest: { diskBytes: { scsi0: bytes } },
    });
    expect(verifyChanges({ plan: grown, sent: all(grown), readBack: grownBack(30 * GIB) })[0]!.outcome).toBe(
      'applied-live',
    );
    expect(verifyChanges({ plan: grown, sent: all(grown), readBack: grownBack(20 * GIB) })[0]!.detail).toBe(
      'the guest sees scsi0 as 20G, not 30G',
    );
    const moved = planFor({ interfaces: [net0({ mode: 'access', untaggedVlan: 30 })] });
    const movedBack = (interfaces: Array<{ mac: string; addresses: string[] }>) => ({
      config: configWith({ net0: `virtio=${MAC0},bridge=vmbr0,tag=30` }),
      pending: [],
      guest: { interfaces },
    });
    const check = (interfaces: Array<{ mac: string; addresses: string[] }>) =>
      verifyChanges({
        plan: moved,
        sent: all(moved),
        readBack: movedBack(interfaces),
        addresses: { net0: '192.0.2.10/24' },
      })[0]!;
    expect(check([{ mac: MAC0.toLowerCase(), addresses: ['192.0.2.10/24'] }]).outcome).toBe('applied-live');
    expect(check([{ mac: MAC1, addresses: ['192.0.2.10/24'] }]).detail).toBe(
      `the guest has no interface with net0's MAC ${MAC0}`,
    );
    expect(check([{ mac: MAC0, addresses: ['198.51.100.7/24'] }]).detail).toBe(
      `the guest's interface with MAC ${MAC0} does not have NetBox's address 192.0.2.10/24`,
    );
  });
});

describe('one line per change and outcome (CLI, journal)', () => {
  it('names the field, both values with units, the class, the side and the reason', () => {
    const plan = planFor(
      { memoryMB: 4096, diskMB: 30_720, interfaces: [net0({ enabled: false })] },
      { config: configWith(hot) },
    );
    expect(plan.changes.map(describeChange)).toEqual([
      'memory: 2048 MiB → 4096 MiB [live, NetBox] memory hotplug is on (with NUMA): DIMMs are hot-added',
      'scsi0.size: 20G → 30G [live, NetBox] grown on the running VM (block_resize): the guest sees the new size',
      'net0.link_down: up → down [live, NetBox] the link is set up or down through QMP (set_link)',
    ]);
    const pendingPlan = planFor({ memoryMB: 4096 }, { pending: [{ key: 'memory', value: '4096' }] });
    expect(describeChange(only(pendingPlan, 'memory'))).toBe(
      'memory: 2048 MiB (pending: 4096 MiB) → 4096 MiB [at-restart, already pending, NetBox] memory is not in the VM’s hotplug: it changes at the next start',
    );
    expect(
      describeOutcome({
        id: 'memory',
        outcome: 'pending-restart',
        detail: "Proxmox holds it until the VM's next start",
      }),
    ).toBe("memory: pending-restart (Proxmox holds it until the VM's next start)");
  });
});
