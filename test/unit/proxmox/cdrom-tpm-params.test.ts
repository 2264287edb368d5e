import { attachedDisks, vmCreateParams } from '../../../src/proxmox';
import { cdromParams, isCdromValue, tpmstateValue } from '../../../src/proxmox/cdrom-tpm';

describe('CD drives and TPM state as PVE parameters', () => {
  it('writes empty and ISO CD drives with media=cdrom, and a new TPM with its version', () => {
    expect(cdromParams([{ slot: 'ide2' }, { slot: 'ide3', iso: 'local:iso/server2022.iso' }])).toEqual({
      ide2: 'none,media=cdrom',
      ide3: 'local:iso/server2022.iso,media=cdrom',
    });
    expect(cdromParams()).toEqual({});
    expect(tpmstateValue({ storage: 'local-lvm', version: 'v2.0' })).toBe('local-lvm:1,version=v2.0');
  });

  it('puts them into the create parameters of a shell', () => {
    const params = vmCreateParams({
      node: 'pve1',
      vmid: 20077,
      name: 'win11',
      machine: 'q35',
      bios: 'ovmf',
      efidisk: { storage: 'local-lvm', efitype: '4m', preEnrolledKeys: false },
      tpmstate: { storage: 'local-lvm', version: 'v2.0' },
      cdroms: [{ slot: 'ide2', iso: 'local:iso/virtio-win.iso' }, { slot: 'ide0' }],
      memory: 4096,
    });
    expect(params).toEqual({
      name: 'win11',
      machine: 'q35',
      bios: 'ovmf',
      memory: '4096',
      efidisk0: 'local-lvm:1,efitype=4m,pre-enrolled-keys=0',
      tpmstate0: 'local-lvm:1,version=v2.0',
      ide2: 'local:iso/virtio-win.iso,media=cdrom',
      ide0: 'none,media=cdrom',
    });
    expect(vmCreateParams({ node: 'pve1', vmid: 1, name: 'x' })).toEqual({ name: 'x' });
  });

  it('does not count CD drives among the attached disks', () => {
    expect(isCdromValue('none,media=cdrom')).toBe(true);
    expect(isCdromValue('local:iso/x.iso,media=cdrom,size=64K')).toBe(true);
    expect(isCdromValue('local-lvm:vm-1-disk-0,size=4G')).toBe(false);
    expect(
      Object.keys(
        attachedDisks({
          ide0: 'local-lvm:vm-1-disk-1,size=4G',
          ide2: 'none,media=cdrom',
          ide3: 'local:iso/x.iso,media=cdrom,size=64K',
          scsi0: 'local-lvm:vm-1-disk-2,size=10G',
          tpmstate0: 'local-lvm:vm-1-disk-0,size=4M,version=v2.0',
        }),
      ),
    ).toEqual(['ide0', 'scsi0']);
  });
});
