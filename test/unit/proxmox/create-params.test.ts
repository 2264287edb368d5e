import { vmCreateParams } from '../../../src/proxmox';
import { formatNic } from '../../../src/proxmox/nics';

describe('vmCreateParams', () => {
  it('writes a migrated shell as PVE takes it: EFI disk property string, 1/0 flags, tags joined', () => {
    expect(
      vmCreateParams({
        node: 'pve1',
        vmid: 20042,
        name: 'web01',
        machine: 'q35',
        bios: 'ovmf',
        efidisk: { storage: 'local-lvm', efitype: '4m', preEnrolledKeys: false },
        sockets: 2,
        cores: 4,
        vcpus: 6,
        memory: 8192,
        ostype: 'l26',
        scsihw: 'virtio-scsi-single',
        onboot: false,
        tags: ['ferry', 'migrated'],
        description: 'Migrated by ferry',
      }),
    ).toEqual({
      name: 'web01',
      machine: 'q35',
      bios: 'ovmf',
      efidisk0: 'local-lvm:1,efitype=4m,pre-enrolled-keys=0',
      sockets: '2',
      cores: '4',
      vcpus: '6',
      memory: '8192',
      ostype: 'l26',
      scsihw: 'virtio-scsi-single',
      onboot: '0',
      tags: 'ferry;migrated',
      description: 'Migrated by ferry',
    });
  });

  it('writes NICs, import-from disks, boot order and live-restore of a live import', () => {
    expect(
      vmCreateParams({
        node: 'pve1',
        vmid: 20042,
        nics: [{ slot: 'net0', model: 'vmxnet3', macaddr: '00:50:56:aa:bb:a0', bridge: 'v100', tag: 5 }],
        importDisks: [
          { slot: 'scsi0', storage: 'local-lvm', source: '/mnt/pve/nfs/web01/web01.vmdk' },
          { slot: 'scsi1', storage: 'local-lvm', source: 'nfs:import/web01_1.vmdk' },
        ],
        boot: 'order=scsi0;net0',
        liveRestore: true,
      }),
    ).toEqual({
      net0: 'vmxnet3=00:50:56:AA:BB:A0,bridge=v100,tag=5',
      scsi0: 'local-lvm:0,import-from=/mnt/pve/nfs/web01/web01.vmdk',
      scsi1: 'local-lvm:0,import-from=nfs:import/web01_1.vmdk',
      boot: 'order=scsi0;net0',
      'live-restore': '1',
    });
  });
});

describe('formatNic', () => {
  it('puts the model with the MAC first, then the options; no MAC lets PVE make one', () => {
    expect(formatNic({ model: 'virtio', macaddr: '00:50:56:AA:BB:A0', bridge: 'v100' })).toBe(
      'virtio=00:50:56:AA:BB:A0,bridge=v100',
    );
    expect(formatNic({ bridge: 'vmbr0', firewall: true })).toBe('virtio,bridge=vmbr0,firewall=1');
  });
});
