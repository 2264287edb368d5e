import { loadSubset } from '../../../lab/proxmox-sim/schema/subset';
import { validateParams } from '../../../lab/proxmox-sim/schema/validate';
import type { ConfigWrite } from '../../../src/domain/change';
import { configWriteRequest, formatNicValue } from '../../../src/proxmox/change-params';
import { parseNic } from '../../../src/proxmox/nics';

const empty: ConfigWrite = {
  changes: [],
  addNics: {},
  setNics: {},
  newDisks: {},
  diskOptions: {},
  delete: [],
  detach: [],
  revert: [],
};
const current = {
  scsi1: 'fast:vm-9001-disk-1,cache=none,iothread=1,size=32G',
  net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0,tag=20',
};

describe('a day-2 config write as Proxmox parameters', () => {
  it('CPU, memory, NICs whole (MAC kept), new disks as storage:GiB, detaches and deletions without force, reverts, the digest', () => {
    const write: ConfigWrite = {
      ...empty,
      changes: ['memory', 'vcpus', 'net0.tag', 'net1', 'scsi2', 'scsi3', 'net2'],
      cores: 4,
      vcpus: 3,
      memory: 4096,
      setNics: { net0: { ...parseNic(current.net0), options: { bridge: 'vmbr0', tag: '30' } } },
      addNics: { net1: { slot: 'net1', model: 'virtio', bridge: 'vmbr1', tag: 40 } },
      newDisks: { scsi2: { storage: 'fast', sizeGiB: 50, options: { iothread: '1', discard: 'on' } } },
      detach: ['scsi3'],
      delete: ['net2'],
      revert: ['balloon'],
    };
    expect(configWriteRequest(write, current, 'abc')).toEqual({
      method: 'POST',
      params: {
        cores: '4',
        vcpus: '3',
        memory: '4096',
        net1: 'virtio,bridge=vmbr1,tag=40',
        net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0,tag=30',
        scsi2: 'fast:50,iothread=1,discard=on',
        delete: 'net2,scsi3',
        revert: 'balloon',
        digest: 'abc',
      },
    });
  });

  it('merges disk options onto the drive as it is now (its volume and size kept), with the synchronous PUT', () => {
    const write: ConfigWrite = {
      ...empty,
      diskOptions: { scsi1: { set: { ssd: '1', cache: 'writeback' }, unset: ['iothread'] } },
    };
    expect(configWriteRequest(write, current)).toEqual({
      method: 'PUT',
      params: { scsi1: 'fast:vm-9001-disk-1,cache=writeback,size=32G,ssd=1' },
    });
  });

  it('refuses what cannot be one write: options of a disk the VM lacks, a key set and removed', () => {
    expect(() =>
      configWriteRequest({ ...empty, diskOptions: { scsi9: { set: { ssd: '1' }, unset: [] } } }, current),
    ).toThrow('the VM has no disk scsi9 to change the options of');
    expect(() => configWriteRequest({ ...empty, memory: 1024, revert: ['memory'] }, current)).toThrow(
      'config write sets memory and also removes or reverts it',
    );
  });

  it('writes a NIC back as it read it', () => {
    for (const value of [
      'virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1,link_down=1,tag=5,trunks=100;200',
      'e1000=BC:24:11:00:00:02,bridge=vnet1',
    ])
      expect(formatNicValue(parseNic(value))).toBe(value);
  });
});

describe('the parameters are what PVE’s own API schema takes (8.4 and 9.1)', () => {
  it('PUT and POST …/config validate: memory, vcpus, NICs, a new disk, merged options, delete, revert, digest', () => {
    const write: ConfigWrite = {
      ...empty,
      cores: 2,
      vcpus: 2,
      memory: 4096,
      setNics: {
        net0: {
          ...parseNic(current.net0),
          options: { bridge: 'vmbr0', tag: '30', mtu: '1', trunks: '100;200', link_down: '1' },
        },
      },
      addNics: { net1: { slot: 'net1', model: 'virtio', bridge: 'vmbr1', rate: 12.5, queues: 4, firewall: true } },
      newDisks: { scsi2: { storage: 'fast', sizeGiB: 50, options: { iothread: '1', discard: 'on', ssd: '1' } } },
      diskOptions: { scsi1: { set: { backup: '0' }, unset: [] } },
      detach: ['scsi3'],
      revert: ['balloon'],
    };
    const digest = 'a'.repeat(40);
    for (const flavour of ['8.4', '9.1'] as const) {
      const config = loadSubset(flavour).endpoints['/nodes/{node}/qemu/{vmid}/config']!;
      for (const method of ['PUT', 'POST'] as const) {
        const { params } = configWriteRequest(write, current, digest);
        const checked = validateParams(config[method]!, { ...params, node: 'pve1', vmid: '9001' });
        expect({ flavour, method, errors: checked.errors }).toEqual({ flavour, method, errors: {} });
      }
    }
  });
});
