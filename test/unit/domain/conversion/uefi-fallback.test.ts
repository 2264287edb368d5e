import { uefiFallbackCopies } from '../../../../src/domain/conversion';

describe('the UEFI removable-media path', () => {
  it('is left alone when the ESP has it (in any case, as FAT has it)', () => {
    expect(uefiFallbackCopies(['EFI/debian/grubx64.efi', 'EFI/Boot/bootx64.efi'])).toEqual({ copies: [] });
  });

  it('gets shim and the GRUB beside it (and MokManager), never fbx64.efi, for a guest that boots through shim', () => {
    const files = [
      'EFI/debian',
      'EFI/debian/shimx64.efi',
      'EFI/debian/grubx64.efi',
      'EFI/debian/mmx64.efi',
      'EFI/debian/fbx64.efi',
      'EFI/debian/BOOTX64.CSV',
      'EFI/debian/grub.cfg',
    ];
    const { copies, note } = uefiFallbackCopies(files);
    expect(copies).toEqual([
      { from: 'EFI/debian/shimx64.efi', to: 'EFI/BOOT/BOOTX64.EFI' },
      { from: 'EFI/debian/grubx64.efi', to: 'EFI/BOOT/grubx64.efi' },
      { from: 'EFI/debian/mmx64.efi', to: 'EFI/BOOT/mmx64.efi' },
    ]);
    expect(note).toMatch(/shim and GRUB from EFI\/debian/);
  });

  it('gets GRUB alone where there is no shim, and says so when there is nothing it knows to copy', () => {
    expect(uefiFallbackCopies(['EFI/ubuntu/grubx64.efi']).copies).toEqual([
      { from: 'EFI/ubuntu/grubx64.efi', to: 'EFI/BOOT/BOOTX64.EFI' },
    ]);
    const none = uefiFallbackCopies(['EFI/Microsoft/Boot/bootmgfw.efi']);
    expect(none.copies).toEqual([]);
    expect(none.note).toMatch(/may not boot/);
  });
});
