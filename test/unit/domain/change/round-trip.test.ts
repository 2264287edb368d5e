import {
  baselineAfter,
  planChanges,
  planWritesNothing,
  verifyChanges,
  type VmReality,
} from '../../../../src/domain/change';
import {
  DEFAULTS,
  MAC0,
  RECORD,
  configWith,
  intentOf,
  policy,
  provisionedConfig,
  provisionedRecord,
  reality,
  specOf,
} from './fixtures';

describe('a VM just provisioned from its record plans to nothing (the same translation both ways)', () => {
  it('the record as provisioning read it (one disk from `disk`, net0 from ferry_network and ferry_vlan), before and after NetBox got the interface', () => {
    const config = provisionedConfig(specOf(RECORD));
    for (const record of [RECORD, provisionedRecord(RECORD)]) {
      const plan = planChanges(intentOf(record), reality(config), undefined, policy());
      expect(plan.changes).toEqual([]);
      expect(planWritesNothing(plan)).toBe(true);
    }
  });

  it('a record with virtual disks, interfaces in VLAN modes, MTU, a disabled link, rate, queues and options', () => {
    const record = {
      ...RECORD,
      fields: { vmid: 9001, storage: 'fast', network: 'vnet1' },
      disks: [
        { id: 1, name: 'scsi0', sizeMB: 20_480, fields: {} },
        {
          id: 2,
          name: 'scsi1',
          sizeMB: 102_400,
          fields: { storage: 'local-lvm', options: 'iothread=1,ssd=1,backup=0' },
        },
      ],
      interfaces: [
        {
          id: 10,
          name: 'net0',
          enabled: true,
          mode: 'access',
          untaggedVlan: 30,
          taggedVlans: [],
          mtu: 9000,
          mac: MAC0,
          fields: { rate: 12.5, queues: 4 },
        },
        {
          id: 11,
          name: 'net1',
          enabled: false,
          mode: 'tagged',
          untaggedVlan: 5,
          taggedVlans: [200, 100],
          fields: { network: 'vmbr1', firewall: true },
        },
        { id: 12, name: 'net1.100', enabled: true, parentId: 11, taggedVlans: [], fields: {} },
      ],
    };
    const config = provisionedConfig(specOf(record));
    expect(config).toMatchObject({
      scsi1: 'local-lvm:vm-9001-disk-2,iothread=1,ssd=1,backup=0,size=100G',
      net0: `virtio=${MAC0},bridge=vnet1,mtu=9000,queues=4,rate=12.5,tag=30`,
      net1: 'virtio=BC:24:11:00:00:02,bridge=vmbr1,firewall=1,link_down=1,tag=5,trunks=100;200',
    });
    const plan = planChanges(intentOf(record), reality(config), undefined, policy());
    expect(plan.changes).toEqual([]);
  });

  it('a VM built from an image (import-from scsi0, cloud-init drive on scsi30) and an ISO (ide2): drives ferry does not manage stay out', () => {
    const record = {
      ...RECORD,
      fields: { vmid: 9001, image: 'local:import/debian.qcow2', iso: 'local:iso/debian.iso' },
    };
    const config = provisionedConfig(specOf(record));
    expect(config.scsi30).toContain('cloudinit');
    expect(config.ide2).toContain('media=cdrom');
    expect(planChanges(intentOf(record), reality(config), undefined, policy()).changes).toEqual([]);
  });

  it('also a stopped VM, and a VM whose config reads `memory: current=…` (PVE 8.1+) and spells flags otherwise', () => {
    const config = configWith({
      memory: 'current=2048',
      scsi0: 'local-lvm:vm-9001-disk-1,discard=on,iothread=on,size=20G,backup=1',
      net0: `virtio=${MAC0.toLowerCase()},bridge=vmbr0,tag=20,link_down=0,firewall=0`,
    });
    for (const power of ['running', 'stopped'] as const) {
      expect(
        planChanges(intentOf(provisionedRecord(RECORD)), reality(config, { power }), undefined, policy()).changes,
      ).toEqual([]);
    }
  });
});

describe('a rerun after applying plans to nothing', () => {
  it('memory up (live), a disk grown, net0 moved to another VLAN: Proxmox as it reads after the apply, and the baseline stored', () => {
    const record = provisionedRecord(RECORD);
    const edited = { ...record, memoryMB: 4096, diskMB: 30_720, fields: { ...record.fields, vlan: 30 } };
    const before: VmReality = reality(configWith({ hotplug: 'network,disk,memory', numa: '1' }));
    const plan = planChanges(intentOf(edited), before, undefined, policy());
    expect(plan.changes.map((c) => [c.id, c.class])).toEqual([
      ['memory', 'live'],
      ['scsi0.size', 'live'],
      ['net0.tag', 'live'],
    ]);
    const after = reality(
      configWith({
        hotplug: 'network,disk,memory',
        numa: '1',
        memory: '4096',
        scsi0: 'local-lvm:vm-9001-disk-1,discard=on,iothread=1,size=30G',
        net0: `virtio=${MAC0},bridge=vmbr0,tag=30`,
      }),
    );
    const outcomes = verifyChanges({ plan, sent: new Set(plan.changes.map((c) => c.id)), readBack: after });
    expect(outcomes.map((o) => o.outcome)).toEqual(['applied-live', 'applied-live', 'applied-live']);
    const baseline = baselineAfter(plan, outcomes, undefined);
    const rerun = planChanges(intentOf(edited), after, baseline, policy());
    expect(rerun.changes).toEqual([]);
    expect(planWritesNothing(rerun)).toBe(true);
    expect(baseline.applied).toMatchObject({ memory: '4096', 'scsi0.size': String(30 * 1024 ** 3), 'net0.tag': '30' });
  });

  it('a change held in pending until the restart plans to nothing new: it is already pending', () => {
    const edited = { ...provisionedRecord(RECORD), memoryMB: 4096 };
    const before = reality(configWith());
    const plan = planChanges(intentOf(edited), before, undefined, policy());
    expect(plan.changes.map((c) => [c.id, c.class])).toEqual([['memory', 'at-restart']]);
    const after = reality(configWith(), { pending: [{ key: 'memory', value: '4096' }] });
    const rerun = planChanges(intentOf(edited), after, undefined, policy());
    expect(rerun.changes).toMatchObject([{ id: 'memory', class: 'at-restart', alreadyPending: true }]);
    expect(planWritesNothing(rerun)).toBe(true);
  });

  it('defaults that change in ferry.yaml do not move disks or NICs that NetBox does not place', () => {
    const config = provisionedConfig(specOf(RECORD));
    const moved = { ...DEFAULTS, storage: 'fast', network: 'vmbr9' };
    expect(planChanges(intentOf(RECORD, moved), reality(config), undefined, policy()).changes).toEqual([]);
  });
});
