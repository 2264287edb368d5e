import {
  CONVERSION_OFF,
  describeOs,
  grubKernelCmdline,
  guestDevices,
  guestFamily,
  relevantPackages,
  vmwareToolsRemoved,
} from '../../../../src/domain/conversion';

const POLICIES = { diskBus: 'scsi' as const, nicModel: 'virtio' as const };

describe('a guest family from its ostype', () => {
  it('knows Linux, Windows and the rest', () => {
    expect([
      guestFamily('l26'),
      guestFamily('l24'),
      guestFamily('win11'),
      guestFamily('w2k8'),
      guestFamily('solaris'),
      guestFamily('other'),
    ]).toEqual(['linux', 'linux', 'windows', 'windows', 'other', 'other']);
  });
});

describe('the devices a guest boots with', () => {
  it('keeps the policies for Linux and for runs without conversion settings', () => {
    expect(guestDevices('web', 'linux', { ...CONVERSION_OFF, mode: 'linux' }, POLICIES)).toEqual(POLICIES);
    expect(guestDevices('win', 'windows', undefined, POLICIES)).toEqual(POLICIES);
  });

  it('puts a Windows guest without VirtIO drivers on SATA and e1000e, and says so', () => {
    for (const conversion of [
      CONVERSION_OFF,
      { ...CONVERSION_OFF, mode: 'linux' as const },
      { ...CONVERSION_OFF, mode: 'all' as const },
    ]) {
      const devices = guestDevices('win', 'windows', conversion, POLICIES);
      expect(devices).toMatchObject({ diskBus: 'sata', nicModel: 'e1000e' });
      expect(devices.note).toMatch(/disks go on SATA and its NICs on e1000e/);
    }
    // An explicit NIC model stays (it is one the admin chose); the disks still need a bus Windows knows.
    expect(guestDevices('win', 'windows', CONVERSION_OFF, { diskBus: 'keep', nicModel: 'vmxnet3' })).toMatchObject({
      diskBus: 'sata',
      nicModel: 'vmxnet3',
    });
  });

  it('keeps virtio for a Windows guest that gets VirtIO drivers (all, with virtioWin), per VM', () => {
    const conversion = {
      ...CONVERSION_OFF,
      mode: 'all' as const,
      virtioWin: '/srv/virtio-win',
      overrides: [{ vm: 'legacy*', mode: 'off' as const }],
    };
    expect(guestDevices('win', 'windows', conversion, POLICIES)).toEqual(POLICIES);
    expect(guestDevices('legacy01', 'windows', conversion, POLICIES)).toMatchObject({
      diskBus: 'sata',
      nicModel: 'e1000e',
    });
  });
});

describe('inspection facts', () => {
  it('keeps the package names conversion looks at from inspect-list-applications2', () => {
    const output = [
      '[0] = {',
      '  app2_name: adduser',
      '  app2_summary: add users',
      '}',
      '[1] = {',
      '  app2_name: open-vm-tools',
      '  app2_description: the tools',
      '  app2_name: not-a-field',
      '}',
      '[2] = {',
      '  app2_name: qemu-guest-agent',
      '}',
    ].join('\n');
    expect(relevantPackages(output)).toEqual(['open-vm-tools', 'qemu-guest-agent']);
  });

  it('names what virt-v2v uninstalls as VMware Tools', () => {
    expect(
      vmwareToolsRemoved([
        'open-vm-tools',
        'vmware-tools-core',
        'VMwareTools',
        'kmod-vmware-tools-vmxnet3',
        'qemu-guest-agent',
      ]),
    ).toEqual(['open-vm-tools', 'vmware-tools-core', 'VMwareTools', 'kmod-vmware-tools-vmxnet3']);
  });

  it('reads the kernel command line GRUB gives every kernel, and names the OS', () => {
    expect(
      grubKernelCmdline(
        'GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\nGRUB_CMDLINE_LINUX="net.ifnames=0 console=ttyS0"\n#GRUB_CMDLINE_LINUX="x"\n',
      ),
    ).toBe('quiet net.ifnames=0 console=ttyS0');
    expect(
      describeOs({
        type: 'linux',
        distro: 'debian',
        major: 12,
        minor: 15,
        product: '12.15',
        arch: 'x86_64',
        packageFormat: 'deb',
      }),
    ).toBe('debian 12.15 (x86_64)');
    expect(
      describeOs({
        type: 'linux',
        distro: 'ubuntu',
        major: 22,
        minor: 4,
        product: 'Ubuntu 22.04.4 LTS',
        arch: 'x86_64',
        packageFormat: 'deb',
      }),
    ).toBe('Ubuntu 22.04.4 LTS (x86_64)');
  });
});
