import {
  pveNicOf,
  specFromRecord,
  type NetboxVmRecord,
  type RecordInterface,
  type SpecDefaults,
} from '../../../../src/domain/provisioning';

const DEFAULTS: SpecDefaults = {
  node: 'pve1',
  storage: 'local-lvm',
  network: 'vmbr0',
  ostype: 'l26',
  nicModel: 'virtio',
  tags: ['ferry'],
  extras: {},
  start: false,
};

const RECORD: NetboxVmRecord = {
  id: 7,
  name: 'db1',
  status: 'planned',
  vcpus: 4,
  memoryMB: 8192,
  diskMB: 30_720,
  tags: [],
  fields: { storage: 'fast', network: 'vnet1', vlan: 20 },
};

const iface = (name: string, edits: Partial<RecordInterface> = {}): RecordInterface => ({
  id: 1,
  name,
  enabled: true,
  taggedVlans: [],
  fields: {},
  ...edits,
});

function spec(record: NetboxVmRecord) {
  const result = specFromRecord(record, DEFAULTS);
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return result.spec;
}

describe("a NetBox VM's virtual disks and interfaces (record-hardware.ts)", () => {
  it('one disk per virtual disk (named after its slot), storage from the disk, else the VM, else the default; options from ferry_disk_options', () => {
    const built = spec({
      ...RECORD,
      disks: [
        { id: 1, name: 'scsi0', sizeMB: 20_480, fields: {} },
        { id: 2, name: 'virtio1', sizeMB: 1500, fields: { storage: 'local-lvm', options: 'cache=writeback,ssd=1' } },
      ],
    });
    expect(built.disks).toEqual([
      { slot: 'scsi0', storage: 'fast', sizeGiB: 20, options: { iothread: 1, discard: 'on' } },
      { slot: 'virtio1', storage: 'local-lvm', sizeGiB: 2, options: { cache: 'writeback', ssd: '1' } },
    ]);
  });

  it('one NIC per interface: 802.1Q mode to tag and trunks, MTU, disabled → link down, MAC, rate, queues, firewall; sub-interfaces left out', () => {
    const built = spec({
      ...RECORD,
      interfaces: [
        iface('net0', { mac: 'BC:24:11:00:00:01' }),
        iface('net1', {
          mode: 'access',
          untaggedVlan: 30,
          mtu: 9000,
          fields: { network: 'vmbr1', rate: 12.5, queues: 4 },
        }),
        iface('net2', {
          mode: 'tagged',
          untaggedVlan: 5,
          taggedVlans: [300, 100, 100],
          enabled: false,
          fields: { firewall: true },
        }),
        iface('net3', { mode: 'tagged-all' }),
        iface('net0.100', { parentId: 1 }),
      ],
    });
    expect(built.nics).toEqual([
      { slot: 'net0', network: 'vnet1', model: 'virtio', vlan: 20, mac: 'BC:24:11:00:00:01' },
      { slot: 'net1', network: 'vmbr1', model: 'virtio', vlan: 30, mtu: 9000, rate: 12.5, queues: 4 },
      { slot: 'net2', network: 'vmbr0', model: 'virtio', vlan: 5, trunks: [100, 300], linkDown: true, firewall: true },
      { slot: 'net3', network: 'vmbr0', model: 'virtio' },
    ]);
    expect(pveNicOf(built.nics[2]!)).toEqual({
      slot: 'net2',
      model: 'virtio',
      bridge: 'vmbr0',
      tag: 5,
      trunks: [100, 300],
      firewall: true,
      linkDown: true,
    });
  });

  it('names each problem after the virtual disk or interface a person must fix in NetBox', () => {
    const result = specFromRecord(
      {
        ...RECORD,
        disks: [
          { id: 1, name: 'disk1', sizeMB: 1024, fields: {} },
          { id: 2, name: 'scsi1', sizeMB: 1024, fields: { options: 'iothread=1,iothread=0' } },
        ],
        interfaces: [
          iface('eth0'),
          iface('net1', { mode: 'q-in-q' }),
          iface('net2', { mode: 'tagged-all', untaggedVlan: 9 }),
          iface('net3', { fields: { queues: 99 } }),
        ],
      },
      DEFAULTS,
    );
    expect(result).toEqual({
      ok: false,
      problems: [
        'NetBox VM "db1" (id 7): virtual disk "scsi1": custom field ferry_disk_options: property string "iothread=1,iothread=0": key "iothread" appears twice',
        'NetBox VM "db1" (id 7): interface "net1": 802.1Q mode q-in-q: ferry builds access, tagged and tagged-all NICs only',
        'NetBox VM "db1" (id 7): interface "net2": 802.1Q mode Tagged (All) with untagged VLAN 9: a Proxmox NIC with a tag carries only that VLAN; use mode Tagged and list the VLANs',
        'NetBox VM "db1" (id 7): virtual disk "disk1" name (a Proxmox slot: scsi0–30, virtio0–15, sata0–5): scsi0–30, virtio0–15 or sata0–5 (ide2 holds the ISO)',
        'NetBox VM "db1" (id 7): interface "eth0" name (a Proxmox slot: net0–net31): net0–net31',
        'NetBox VM "db1" (id 7): interface "net3" custom field ferry_queues: at most 64',
      ],
    });
  });

  it('without virtual disks or interfaces, as before: scsi0 from `disk`, net0 from ferry_network and ferry_vlan', () => {
    expect(spec(RECORD)).toMatchObject({
      disks: [{ slot: 'scsi0', storage: 'fast', sizeGiB: 30 }],
      nics: [{ slot: 'net0', network: 'vnet1', vlan: 20 }],
    });
  });
});
