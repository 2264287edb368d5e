import {
  CONVERSION_OFF,
  conversionModeFor,
  conversionPlan,
  describeConversion,
  type ConversionFacts,
  type ConversionSettings,
  type GuestInspection,
} from '../../../../src/domain/conversion';

const LINUX: ConversionSettings = { ...CONVERSION_OFF, mode: 'linux', agentPackages: '/srv/agents' };
const FACTS: ConversionFacts = {
  vmName: 'mig-ens01',
  family: 'linux',
  firmware: 'bios',
  nics: [{ slot: 'net0', mac: '00:50:56:01:00:04' }],
  disks: [{ slot: 'scsi0' }],
};
const DEBIAN: GuestInspection = {
  os: { type: 'linux', distro: 'debian', major: 12, minor: 15, product: '12.15', arch: 'x86_64', packageFormat: 'deb' },
  packages: ['open-vm-tools'],
  bootloaderConfigs: ['/boot/grub/grub.cfg'],
  efiFiles: [],
  networkFiles: [{ path: '/etc/network/interfaces', text: 'allow-hotplug ens192\niface ens192 inet static\n' }],
  kernelCmdline: 'console=ttyS0',
  agentFolders: ['debian-12'],
};

describe('which VMs are converted', () => {
  it('takes the first matching override, else the mode', () => {
    const settings = {
      ...LINUX,
      overrides: [
        { vm: 'mig-app*', mode: 'off' as const },
        { vm: 'mig-app01', mode: 'all' as const },
      ],
    };
    expect(conversionModeFor('mig-app01', settings)).toBe('off');
    expect(conversionModeFor('mig-ens01', settings)).toBe('linux');
  });

  it('converts nothing with conversion off, or without settings (runs from before conversion)', () => {
    expect(conversionPlan(FACTS, CONVERSION_OFF)).toMatchObject({ convert: false, code: 'off' });
    expect(conversionPlan(FACTS, undefined)).toMatchObject({ convert: false, code: 'off' });
  });

  it('converts neither an unknown OS, nor Windows under `linux`, nor Windows without VirtIO drivers', () => {
    expect(conversionPlan({ ...FACTS, family: 'other' }, LINUX)).toMatchObject({ convert: false, code: 'other-os' });
    expect(conversionPlan({ ...FACTS, family: 'windows' }, LINUX)).toMatchObject({
      convert: false,
      code: 'windows-not-in-mode',
    });
    expect(conversionPlan({ ...FACTS, family: 'windows' }, { ...LINUX, mode: 'all' })).toMatchObject({
      convert: false,
      code: 'no-virtio-win',
      reason: expect.stringContaining('virtioWin'),
    });
  });

  it('converts Windows under `all` with virtioWin: VirtIO drivers from it, VMware Tools removed', () => {
    const plan = conversionPlan(
      { ...FACTS, family: 'windows' },
      { ...LINUX, mode: 'all', virtioWin: '/srv/virtio-win.iso' },
    );
    expect(plan).toMatchObject({ convert: true, family: 'windows' });
    if (!plan.convert) throw new Error('unreachable');
    expect(plan.steps).toEqual([
      { kind: 'overlay', slots: ['scsi0'] },
      {
        kind: 'virt-v2v',
        drivers: 'VirtIO drivers (viostor, vioscsi, netkvm) from /srv/virtio-win.iso',
        removes: ['VMware Tools'],
      },
    ]);
  });

  it('plans a Linux guest from vCenter facts until its disks are inspected, and says so', () => {
    const plan = conversionPlan(FACTS, LINUX);
    expect(plan).toMatchObject({ convert: true, family: 'linux', inspected: false });
    expect(describeConversion(plan)[0]).toBe('converted (linux, not inspected yet)');
  });
});

describe('a Linux guest as inspected', () => {
  it('is converted with its NIC pinned, the agent installed, VMware Tools removed by virt-v2v', () => {
    const plan = conversionPlan(FACTS, LINUX, DEBIAN);
    expect(plan).toMatchObject({
      convert: true,
      family: 'linux',
      inspected: true,
      os: 'debian 12.15 (x86_64)',
      warnings: [],
    });
    if (!plan.convert) throw new Error('unreachable');
    expect(plan.steps.map((s) => s.kind)).toEqual(['overlay', 'pin-nic', 'install-agent', 'virt-v2v']);
    expect(plan.steps[2]).toEqual({ kind: 'install-agent', folder: 'debian-12' });
    expect(plan.steps[3]).toMatchObject({ kind: 'virt-v2v', removes: ['open-vm-tools'] });
    expect(describeConversion(plan)).toEqual([
      'converted (linux: debian 12.15 (x86_64))',
      "  - qcow2 overlay over the VMware disk of scsi0 (VMware's files are only read)",
      '  - NIC net0 00:50:56:01:00:04: ens192 on VMware, ens18 on Proxmox without a pin: pinned to ens192 (by slot order)',
      '  - install qemu-guest-agent from agentPackages/debian-12 (offline)',
      '  - virt-v2v-in-place: virtio_blk, virtio_scsi and virtio_net into the initramfs (rebuilt), GRUB configuration regenerated; removes open-vm-tools',
    ]);
  });

  it('installs no agent where the guest has one, and warns where none can be installed', () => {
    const withAgent = conversionPlan(FACTS, LINUX, { ...DEBIAN, packages: ['open-vm-tools', 'qemu-guest-agent'] });
    expect(withAgent.convert && withAgent.steps.map((s) => s.kind)).toEqual(['overlay', 'pin-nic', 'virt-v2v']);
    const noFolder = conversionPlan(FACTS, LINUX, { ...DEBIAN, agentFolders: ['rhel-9'] });
    expect(noFolder.convert && noFolder.warnings).toEqual([
      expect.stringContaining('/srv/agents has no debian-12 folder'),
    ]);
    const unset = conversionPlan(FACTS, { ...LINUX, agentPackages: undefined }, DEBIAN);
    expect(unset.convert && unset.warnings).toEqual([expect.stringContaining('agentPackages is not set')]);
  });

  it('keeps open-vm-tools where ubuntu-server depends on it, as virt-v2v does', () => {
    const plan = conversionPlan(FACTS, LINUX, {
      ...DEBIAN,
      os: { ...DEBIAN.os!, distro: 'ubuntu' },
      packages: ['open-vm-tools', 'open-vm-tools-desktop', 'ubuntu-server'],
    });
    expect(plan.convert && plan.steps.at(-1)).toMatchObject({ removes: ['open-vm-tools-desktop'] });
  });

  it('on UEFI copies its loader to the removable-media path, or warns when it cannot', () => {
    const efi = { ...FACTS, firmware: 'efi' as const };
    const inspected = {
      ...DEBIAN,
      bootloaderConfigs: ['/boot/efi/EFI/debian/grub.cfg'],
      efiFiles: ['EFI/debian/shimx64.efi', 'EFI/debian/grubx64.efi'],
    };
    const plan = conversionPlan(efi, LINUX, inspected);
    expect(plan.convert && plan.steps.find((s) => s.kind === 'uefi-fallback')).toEqual({
      kind: 'uefi-fallback',
      copies: [
        { from: 'EFI/debian/shimx64.efi', to: 'EFI/BOOT/BOOTX64.EFI' },
        { from: 'EFI/debian/grubx64.efi', to: 'EFI/BOOT/grubx64.efi' },
      ],
    });
    const odd = conversionPlan(efi, LINUX, { ...inspected, efiFiles: ['EFI/odd/loader.efi'] });
    expect(odd.convert && odd.warnings).toEqual([expect.stringContaining('may not boot')]);
  });

  it('is not converted on blank disks, nor without a GRUB configuration virt-v2v knows', () => {
    expect(conversionPlan(FACTS, LINUX, { ...DEBIAN, os: undefined })).toMatchObject({ convert: false, code: 'no-os' });
    const noGrub = conversionPlan(FACTS, LINUX, { ...DEBIAN, bootloaderConfigs: [] });
    expect(noGrub).toMatchObject({ convert: false, code: 'no-bootloader' });
    expect(describeConversion(noGrub)[0]).toMatch(
      /^not converted: debian 12\.15 \(x86_64\): no GRUB configuration \(\/boot\/grub\*\/grub\.cfg\)/,
    );
  });

  it('follows what the disks hold over what vCenter says (a Windows guest behind a Linux guestId)', () => {
    const windows = { ...DEBIAN, os: { ...DEBIAN.os!, type: 'windows', distro: 'windows' } };
    expect(conversionPlan(FACTS, LINUX, windows)).toMatchObject({ convert: false, code: 'windows-not-in-mode' });
  });
});
