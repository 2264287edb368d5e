import { bootOrderHolds, bootOrderOf, isCdromDrive } from '../../../src/domain/boot-order';

describe('boot order', () => {
  const config = {
    scsi0: 'local-lvm:vm-100-disk-0,size=20G',
    scsi30: 'local-lvm:vm-100-cloudinit,media=cdrom',
    ide2: 'local:iso/debian.iso,media=cdrom',
    scsi1: 'local-lvm:vm-100-disk-1,size=1G',
    net0: 'virtio=BC:24:11:00:00:01,bridge=vmbr0',
  };

  it('reads the devices of order= and none for the legacy form', () => {
    expect(bootOrderOf('order=scsi0;ide2;net0')).toEqual(['scsi0', 'ide2', 'net0']);
    expect(bootOrderOf('cdn')).toEqual([]);
    expect(bootOrderOf(undefined)).toEqual([]);
  });

  it('knows CD drives: media=cdrom, an empty drive, the cloud-init drive', () => {
    expect(isCdromDrive(config.ide2)).toBe(true);
    expect(isCdromDrive('none,media=cdrom')).toBe(true);
    expect(isCdromDrive('local-lvm:vm-100-cloudinit')).toBe(true);
    expect(isCdromDrive(config.scsi0)).toBe(false);
  });

  it('holds when the order is the same, or followed only by CD drives Proxmox appended', () => {
    expect(bootOrderHolds('order=scsi0;net0', 'order=scsi0;net0', config)).toBe(true);
    expect(bootOrderHolds('order=scsi0;net0;scsi30', 'order=scsi0;net0', config)).toBe(true);
    expect(bootOrderHolds('order=scsi0;net0;scsi30;ide2', 'order=scsi0;net0', config)).toBe(true);
  });

  it('does not hold for another order, a missing device, or an appended disk or NIC', () => {
    expect(bootOrderHolds('order=net0;scsi0', 'order=scsi0;net0', config)).toBe(false);
    expect(bootOrderHolds('order=scsi0', 'order=scsi0;net0', config)).toBe(false);
    expect(bootOrderHolds('order=scsi0;net0;scsi1', 'order=scsi0;net0', config)).toBe(false);
    expect(bootOrderHolds('order=scsi0;net0;scsi9', 'order=scsi0;net0', config)).toBe(false);
    expect(bootOrderHolds(undefined, 'order=scsi0;net0', config)).toBe(false);
  });

  it('compares a legacy value as it is', () => {
    expect(bootOrderHolds('cdn', 'cdn', config)).toBe(true);
    expect(bootOrderHolds('order=scsi0', 'cdn', config)).toBe(false);
  });
});
