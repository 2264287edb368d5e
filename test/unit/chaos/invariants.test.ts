import { checkInvariants, invariantTable, type ChaosObservation } from '../../../lab/chaos/invariants';

/** A run that went right: one VM migrated, one provisioned and kept, one provisioned and torn down, one not cut over. */
function clean(): ChaosObservation {
  return {
    pve: {
      vms: [
        {
          vmid: 20001,
          name: 'scale-0001',
          macs: { net0: '00:50:56:00:00:01' },
          volumes: ['local-lvm:vm-20001-disk-0'],
        },
        { vmid: 20002, name: 'scale-0002', macs: { net0: '00:50:56:00:00:02' }, volumes: [] },
        { vmid: 9100, name: 'web1', macs: { net0: 'BC:24:11:00:00:01' }, volumes: ['local-lvm:vm-9100-disk-0'] },
      ],
      volumes: [
        { volid: 'local-lvm:vm-20001-disk-0', vmid: 20001 },
        { volid: 'local-lvm:vm-9100-disk-0', vmid: 9100 },
      ],
      tasks: [
        { type: 'qmcreate', vmid: 20001, ok: true },
        { type: 'qmcreate', vmid: 20002, ok: true },
        { type: 'qmcreate', vmid: 9100, ok: false },
        { type: 'qmcreate', vmid: 9100, ok: true },
        { type: 'qmcreate', vmid: 9101, ok: true },
        { type: 'qmdestroy', vmid: 9101, ok: true },
      ],
    },
    vmware: {
      before: [
        { name: 'scale-0001', powerState: 'poweredOn', macs: ['00:50:56:00:00:01'], disks: 1 },
        { name: 'scale-0002', powerState: 'poweredOff', macs: ['00:50:56:00:00:02'], disks: 1 },
      ],
      after: [
        { name: 'scale-0001', powerState: 'poweredOff', macs: ['00:50:56:00:00:01'], disks: 1 },
        { name: 'scale-0002', powerState: 'poweredOff', macs: ['00:50:56:00:00:02'], disks: 1 },
      ],
    },
    migrations: [
      {
        name: 'scale-0001',
        workflowId: 'm1',
        vmid: 20001,
        outcome: 'migrated',
        planned: ['create-vm', 'relocate', 'import-disk'],
        recorded: ['create-vm', 'relocate', 'import-disk'],
      },
      {
        name: 'scale-0002',
        workflowId: 'm2',
        vmid: 20002,
        outcome: 'failed',
        planned: ['create-vm'],
        recorded: ['create-vm'],
      },
    ],
    provisions: [
      {
        name: 'web1',
        workflowId: 'p1',
        vmid: 9100,
        outcome: 'provisioned',
        createStep: 'created',
        address: '192.0.2.10/24',
        fqdn: 'web1.lab.ferry.test',
      },
      {
        name: 'web2',
        workflowId: 'p2',
        vmid: 9101,
        outcome: 'provisioned',
        createStep: 'created',
        address: '192.0.2.11/24',
        fqdn: 'web2.lab.ferry.test',
        teardown: { asked: true, outcome: 'torn-down', deleteStep: 'done' },
      },
    ],
    netbox: {
      vms: [{ id: 1, name: 'web1', status: 'staged' }],
      addresses: [{ address: '192.0.2.10/24', vmName: 'web1', dnsName: 'web1.lab.ferry.test' }],
    },
    dns: { a: { 'web1.lab.ferry.test': ['192.0.2.10'] }, ptr: { '192.0.2.10': ['web1.lab.ferry.test.'] } },
  };
}

const counts = (o: ChaosObservation) => Object.fromEntries(checkInvariants(o).map((r) => [r.invariant, r.count]));
const only = (o: ChaosObservation, invariant: string, details: string[]) => {
  const rows = checkInvariants(o);
  for (const r of rows)
    expect([r.invariant, r.count]).toEqual([r.invariant, r.invariant === invariant ? details.length : 0]);
  expect(rows.find((r) => r.invariant === invariant)!.details).toEqual(details);
};

describe('chaos invariants', () => {
  it('a clean run counts 0 everywhere', () => {
    expect(Object.values(counts(clean()))).toEqual(Array(10).fill(0));
  });

  it('a second Proxmox VM of one name', () => {
    const o = clean();
    o.pve.vms.push({ vmid: 20003, name: 'scale-0001', macs: {}, volumes: [] });
    only(o, 'duplicate VMs (Proxmox)', ['2 Proxmox VMs named scale-0001']);
  });

  it('a disk no config references, and one shared by two VMs', () => {
    const o = clean();
    o.pve.volumes.push({ volid: 'local-lvm:vm-20001-disk-1', vmid: 20001 });
    o.pve.vms[1]!.volumes.push('local-lvm:vm-20001-disk-0');
    only(o, 'duplicate disks', [
      "local-lvm:vm-20001-disk-1: on storage, not in VM 20001's config",
      'local-lvm:vm-20001-disk-0: referenced by 2 VMs',
    ]);
  });

  it('one MAC on two NICs', () => {
    const o = clean();
    o.pve.vms[0]!.macs.net1 = '00:50:56:00:00:01';
    only(o, 'duplicate NICs (MAC)', ['00:50:56:00:00:01 on 2 NICs']);
  });

  it('an address twice, and a VM with two addresses', () => {
    const o = clean();
    o.netbox.addresses.push({ address: '192.0.2.10/24' }, { address: '192.0.2.12/24', vmName: 'web1' });
    only(o, 'duplicate addresses', ['192.0.2.10 2 times in NetBox', 'web1 has 2 addresses']);
  });

  it('a name with two A records, an address with two PTRs', () => {
    const o = clean();
    o.dns.a['web1.lab.ferry.test'] = ['192.0.2.10', '192.0.2.99'];
    o.dns.ptr['192.0.2.10'] = ['web1.lab.ferry.test.', 'old.lab.ferry.test.'];
    only(o, 'duplicate DNS records', [
      'web1.lab.ferry.test A 192.0.2.10, 192.0.2.99',
      '192.0.2.10 PTR web1.lab.ferry.test., old.lab.ferry.test.',
    ]);
  });

  it('a migration, a provision and a teardown without an outcome', () => {
    const o = clean();
    o.migrations[1]!.outcome = undefined;
    o.provisions[1]!.teardown!.outcome = undefined;
    o.provisions.push({ name: 'web3', workflowId: 'p3' });
    only(o, 'VMs without an outcome', ['scale-0002 (m2): migration', 'web3 (p3): provision', 'web2: teardown']);
  });

  it('a VMware VM not cut over but powered off, one gone, one with a NIC changed', () => {
    const o = clean();
    o.vmware.before.push(
      { name: 'gone', powerState: 'poweredOn', macs: [], disks: 1 },
      { name: 'nic', powerState: 'poweredOn', macs: ['a'], disks: 1 },
    );
    o.vmware.after.push({ name: 'nic', powerState: 'poweredOn', macs: ['b'], disks: 1 });
    o.vmware.before[1]!.powerState = 'poweredOn';
    only(o, 'VMware VMs changed though not cut over', [
      'scale-0002: poweredOn → poweredOff',
      'gone: gone from vCenter',
      'nic: disks or NICs changed',
    ]);
  });

  it('records lost: a migrated VM missing on Proxmox, a kept provision without its NetBox VM, address, A and PTR', () => {
    const o = clean();
    o.pve.vms.splice(0, 1);
    o.pve.volumes.splice(0, 1);
    o.netbox.vms = [];
    o.netbox.addresses = [];
    o.dns = { a: {}, ptr: {} };
    only(o, 'records lost', [
      'scale-0001: migrated, but VM 20001 is not on Proxmox',
      'web1: provisioned, but gone from NetBox',
      'web1: address 192.0.2.10/24 not in NetBox',
      'web1.lab.ferry.test: A record for 192.0.2.10 missing',
      '192.0.2.10: PTR to web1.lab.ferry.test missing',
    ]);
  });

  it('a migrated VM whose recorded actions differ from its plan', () => {
    const o = clean();
    o.migrations[0]!.recorded = ['create-vm', 'import-disk'];
    only(o, 'plan ≠ recorded actions', [
      'scale-0001: planned [create-vm, relocate, import-disk], recorded [create-vm, import-disk]',
    ]);
  });

  it('results that say "unchanged" or "already" for what the simulator log shows this run did', () => {
    const o = clean();
    o.provisions[0]!.createStep = 'unchanged';
    o.provisions[1]!.teardown!.deleteStep = 'already';
    o.migrations[1]!.recorded = [];
    only(o, 'result ≠ simulator log', [
      'web1: result says create-vm unchanged, the simulator log shows qmcreate of VM 9100',
      'web2: result says delete already, the simulator log shows qmdestroy of VM 9101',
      'scale-0002: recorded actions lack create-vm, the simulator log shows qmcreate of VM 20002',
    ]);
  });

  it('reads action kinds from their JSON as the wave records them', () => {
    const o = clean();
    const json = (kind: string) => JSON.stringify({ kind, vm: 'scale-0001' });
    o.migrations[0]!.planned = [json('create-vm'), json('relocate')];
    o.migrations[0]!.recorded = [json('create-vm'), json('relocate')];
    expect(Object.values(counts(o))).toEqual(Array(10).fill(0));
    o.migrations[0]!.planned = [json('relocate')];
    o.migrations[0]!.recorded = [json('relocate')];
    only(o, 'result ≠ simulator log', [
      'scale-0001: recorded actions lack create-vm, the simulator log shows qmcreate of VM 20001',
    ]);
  });

  it('prints a table with every count and the details of what is not 0', () => {
    const o = clean();
    o.pve.vms.push({ vmid: 20003, name: 'scale-0001', macs: {}, volumes: [] });
    const table = invariantTable(checkInvariants(o));
    expect(table).toMatch(/duplicate VMs \(Proxmox\) +1\n/);
    expect(table).toMatch(/records lost +0\n/);
    expect(table).toContain('  2 Proxmox VMs named scale-0001');
  });
});
