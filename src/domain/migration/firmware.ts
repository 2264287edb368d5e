import type { EfiDiskSpec } from '../pve-vm-spec';

export interface FirmwareSettings {
  bios: 'ovmf' | 'seabios';
  machine: 'q35';
  /**
   * EFI vars disk, created with the VM. Pre-enrolled keys stay off: a VMware guest was not booted with
   * Microsoft's keys enrolled in OVMF's store.
   */
  efidisk?: EfiDiskSpec;
}

export function firmwareSettings(firmware: 'bios' | 'efi', efiStorage: string): FirmwareSettings {
  if (firmware === 'efi') {
    return { bios: 'ovmf', machine: 'q35', efidisk: { storage: efiStorage, efitype: '4m', preEnrolledKeys: false } };
  }
  return { bios: 'seabios', machine: 'q35' };
}
