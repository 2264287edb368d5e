import { interfaceFields, virtualDiskFields } from '../../src/netbox/custom-fields';
import { diskRecord, interfaceRecord, vmRecordWithHardware } from '../../src/netbox/records';
import type { VirtualDisk, VirtualMachine, VmInterface } from '../../src/netbox/schemas';

const vm: VirtualMachine = {
  id: 42,
  name: 'web1',
  status: { value: 'active', label: 'Active' },
  vcpus: 2,
  memory: 2048,
  disk: 30_720,
  tags: [{ id: 1, slug: 'web', name: 'web' }],
  custom_fields: { ferry_vmid: 9001, ferry_applied: { version: 1, applied: {}, accepted: {} } },
};

const iface = (edits: Partial<VmInterface>): VmInterface => ({
  id: 100,
  name: 'net0',
  virtual_machine: { id: 42 },
  enabled: true,
  tagged_vlans: [],
  custom_fields: {},
  ...edits,
});

const disk = (edits: Partial<VirtualDisk>): VirtualDisk => ({
  id: 7,
  name: 'scsi0',
  virtual_machine: { id: 42 },
  size: 20_480,
  custom_fields: {},
  ...edits,
});

describe('NetBox answers as the records day 2 reads', () => {
  it('an interface: 802.1Q mode and VLAN ids, MTU, enabled, primary MAC in NetBox form, parent, ferry fields', () => {
    expect(
      interfaceRecord(
        iface({
          mtu: 9000,
          mode: { value: 'tagged', label: 'Tagged' },
          untagged_vlan: { id: 3, vid: 20, name: 'web' },
          tagged_vlans: [
            { id: 4, vid: 30 },
            { id: 5, vid: 40 },
          ],
          enabled: false,
          primary_mac_address: { id: 9, mac_address: 'bc:24:11:00:00:01' },
          parent: { id: 99 },
          custom_fields: { ferry_rate: '12.50', ferry_queues: 4, ferry_firewall: true, ferry_network: null },
        }),
      ),
    ).toEqual({
      id: 100,
      name: 'net0',
      enabled: false,
      mtu: 9000,
      mode: 'tagged',
      untaggedVlan: 20,
      taggedVlans: [30, 40],
      mac: 'BC:24:11:00:00:01',
      parentId: 99,
      fields: { rate: 12.5, queues: 4, firewall: true },
    });
    expect(interfaceRecord(iface({ mode: null, untagged_vlan: null, mtu: null }))).toEqual({
      id: 100,
      name: 'net0',
      enabled: true,
      taggedVlans: [],
      fields: {},
    });
  });

  it('a virtual disk: its size in MB and its storage and options', () => {
    expect(diskRecord(disk({ custom_fields: { ferry_storage: 'fast', ferry_disk_options: 'ssd=1' } }))).toEqual({
      id: 7,
      name: 'scsi0',
      sizeMB: 20_480,
      fields: { storage: 'fast', options: 'ssd=1' },
    });
  });

  it('a VM with only its own interfaces and disks out of lists read in pages for many VMs', () => {
    const record = vmRecordWithHardware(
      vm,
      [iface({}), iface({ id: 200, virtual_machine: { id: 43 } })],
      [disk({}), disk({ id: 8, virtual_machine: { id: 43 } })],
    );
    expect(record.interfaces?.map((i) => i.id)).toEqual([100]);
    expect(record.disks?.map((d) => d.id)).toEqual([7]);
    expect(record).toMatchObject({ id: 42, memoryMB: 2048, diskMB: 30_720, fields: { vmid: 9001 } });
  });

  it('names the object and the field that is wrong', () => {
    expect(() =>
      interfaceFields({ id: 100, name: 'net0', custom_fields: { ferry_queues: 65, ferry_rate: 'fast' } }),
    ).toThrow(
      'NetBox interface "net0" (id 100) has invalid ferry custom fields: ferry_rate: must be a number (got "fast"); ferry_queues: must be at most 64 (got 65)',
    );
    expect(() => virtualDiskFields({ id: 7, name: 'scsi0', custom_fields: { ferry_storage: '' } })).toThrow(
      'NetBox virtual disk "scsi0" (id 7) has invalid ferry custom fields: ferry_storage: must not be empty (got "")',
    );
  });
});
