export interface FirmwareSettings {
  bios: 'ovmf' | 'seabios';
  machine: 'q35';
  /**
   * EFI vars disk, created with the VM (PVE allocates it on `STORAGE:1`). Pre-enrolled keys stay off:
   * a VMware guest was not booted with Microsoft's keys enrolled in OVMF's store.
   */
  efidisk0?: string;
}

export function firmwareSettings(firmware: 'bios' | 'efi', efiStorage: string): FirmwareSettings {
  if (firmware === 'efi') {
    return { bios: 'ovmf', machine: 'q35', efidisk0: `${efiStorage}:1,efitype=4m,pre-enrolled-keys=0` };
  }
  return { bios: 'seabios', machine: 'q35' };
}
