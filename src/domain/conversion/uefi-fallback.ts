/**
 * A UEFI guest boots through a boot entry in the firmware's NVRAM, which VMware keeps in the VM's .nvram
 * file and which does not travel with the disks: on Proxmox's new EFI vars disk the firmware finds only
 * the removable-media path, EFI/BOOT/BOOTX64.EFI. Debian and Ubuntu install GRUB without it by default,
 * and virt-v2v 2.2 fixes it only for CentOS 6 and Ubuntu 14 ("Can't fix UEFI bootloader. VM may not
 * boot."). ferry copies the guest's own loader there: shim and GRUB when the guest boots through shim
 * (shim then starts the GRUB beside it), else GRUB.
 */

export interface EfiCopy {
  /** Paths on the ESP (relative: `EFI/debian/shimx64.efi`). */
  from: string;
  to: string;
}

const FALLBACK = 'EFI/BOOT/BOOTX64.EFI';

const lowerEq = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The copies that give an x86_64 UEFI guest its removable-media path, or none when it has one (or no loader ferry knows). */
export function uefiFallbackCopies(efiFiles: readonly string[]): { copies: EfiCopy[]; note?: string } {
  if (efiFiles.some((f) => lowerEq(f, FALLBACK))) return { copies: [] };
  const dirs = [
    ...new Set(
      efiFiles
        .map((f) => /^(EFI\/[^/]+)\/[^/]+$/i.exec(f)?.[1])
        .filter((d): d is string => d !== undefined && !/^EFI\/BOOT$/i.test(d)),
    ),
  ].sort();
  const file = (dir: string, name: string) => efiFiles.find((f) => lowerEq(f, `${dir}/${name}`));
  for (const dir of dirs) {
    const shim = file(dir, 'shimx64.efi');
    const grub = file(dir, 'grubx64.efi');
    if (shim && grub) {
      const mok = file(dir, 'mmx64.efi');
      // Not fbx64.efi: beside shim it would rebuild NVRAM entries and reset the VM first.
      return {
        copies: [
          { from: shim, to: FALLBACK },
          { from: grub, to: 'EFI/BOOT/grubx64.efi' },
          ...(mok ? [{ from: mok, to: 'EFI/BOOT/mmx64.efi' }] : []),
        ],
        note: `the ESP has no ${FALLBACK}: shim and GRUB from ${dir} are copied there (the VMware NVRAM boot entry does not move)`,
      };
    }
    if (grub)
      return {
        copies: [{ from: grub, to: FALLBACK }],
        note: `the ESP has no ${FALLBACK}: GRUB from ${dir} is copied there (the VMware NVRAM boot entry does not move)`,
      };
  }
  return {
    copies: [],
    note: `the ESP has no ${FALLBACK} and no GRUB ferry knows to copy there: the VM may not boot without its VMware NVRAM boot entry`,
  };
}
