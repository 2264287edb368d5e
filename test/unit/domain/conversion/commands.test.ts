import {
  atPriority,
  CANNOT_START,
  inOwnProcessGroup,
  conversionPlan,
  CONVERSION_OFF,
  currentStep,
  guestEdits,
  installPackagesScript,
  libguestfsEnv,
  overlayDisks,
  parseConverterOutput,
  sourceInStorage,
  virtV2vInPlace,
} from '../../../../src/domain/conversion';

describe('the converter command line', () => {
  it('runs virt-v2v-in-place over all overlays at once, direct backend, TCG unless KVM', () => {
    expect(
      virtV2vInPlace(['/nfs/images/20100/vm-20100-disk-0.qcow2', '/nfs/images/20100/vm-20100-disk-1.qcow2'], {
        accel: 'tcg',
      }),
    ).toEqual({
      program: 'virt-v2v-in-place',
      args: [
        '-i',
        'disk',
        '-if',
        'qcow2',
        '/nfs/images/20100/vm-20100-disk-0.qcow2',
        '/nfs/images/20100/vm-20100-disk-1.qcow2',
      ],
      env: { LIBGUESTFS_BACKEND: 'direct', LIBGUESTFS_BACKEND_SETTINGS: 'force_tcg' },
    });
    expect(libguestfsEnv('kvm')).toEqual({ LIBGUESTFS_BACKEND: 'direct' });
    expect(() => virtV2vInPlace([], { accel: 'kvm' })).toThrow(/at least one disk/);
  });

  it('runs a conversion at low priority (SCHED_IDLE and nice 19, inherited) unless asked for normal', () => {
    const command = virtV2vInPlace(['/a.qcow2'], { accel: 'tcg' });
    expect(atPriority(command, 'low')).toEqual({
      program: 'chrt',
      args: ['--idle', '0', 'nice', '-n', '19', 'virt-v2v-in-place', '-i', 'disk', '-if', 'qcow2', '/a.qcow2'],
      env: command.env,
    });
    expect(atPriority(command, 'normal')).toBe(command);
  });

  it('starts the converter in a process group of its own through perl, program and arguments passed as they are', () => {
    const wrapped = inOwnProcessGroup({
      program: 'virt-v2v-in-place',
      args: ['-i', 'disk', "/o'dd $x.qcow2"],
      env: {},
    });
    expect(wrapped.program).toBe('perl');
    expect(wrapped.args[0]).toBe('-e');
    expect(wrapped.args[1]).toContain('setpgrp(0, 0)');
    expect(wrapped.args[1]).toContain(`exit ${CANNOT_START}`);
    // The program and its arguments follow the script as separate arguments: no shell, no quoting.
    expect(wrapped.args.slice(2)).toEqual(['virt-v2v-in-place', '-i', 'disk', "/o'dd $x.qcow2"]);
  });

  it('gives virt-v2v the VirtIO drivers for Windows through VIRTIO_WIN', () => {
    expect(virtV2vInPlace(['/a.qcow2'], { accel: 'kvm', virtioWin: '/srv/virtio-win.iso' }).env).toEqual({
      LIBGUESTFS_BACKEND: 'direct',
      VIRTIO_WIN: '/srv/virtio-win.iso',
    });
  });

  it('reads virt-v2v output: timed steps, warnings (wrapped), notes, the error; colour codes stripped', () => {
    const out = [
      '[   0.0] Setting up the source: -i disk /nfs/o.qcow2',
      '\u001b[1;34m[  30.1] Converting 12.15 to run on KVM\u001b[0m',
      'virt-v2v-in-place: warning: could not determine a way to update the configuration of',
      '  Grub2',
      "virt-v2v-in-place: Can't fix UEFI bootloader. VM may not boot.",
      'virt-v2v-in-place: error: no bootloader detected',
    ].join('\n');
    const log = parseConverterOutput(out);
    expect(log.steps).toEqual([
      { atSeconds: 0, text: 'Setting up the source: -i disk /nfs/o.qcow2' },
      { atSeconds: 30.1, text: 'Converting 12.15 to run on KVM' },
    ]);
    expect(log.warnings).toEqual(['could not determine a way to update the configuration of Grub2']);
    expect(log.infos).toEqual(["Can't fix UEFI bootloader. VM may not boot."]);
    expect(log.error).toBe('no bootloader detected');
    expect(currentStep(log)).toBe('Converting 12.15 to run on KVM');
  });
});

describe('the overlays', () => {
  it('are PVE volumes of the VM in the storage root, backed by the VMDK by a relative path', () => {
    const [a, b] = overlayDisks('nfs-migration', 20100, [
      { slot: 'scsi0', source: 'mig-ens01/mig-ens01.vmdk' },
      { slot: 'scsi1', source: 'import/data.vmdk' },
    ]);
    expect(a).toEqual({
      slot: 'scsi0',
      volume: 'nfs-migration:20100/vm-20100-disk-0.qcow2',
      file: 'images/20100/vm-20100-disk-0.qcow2',
      backing: '../../mig-ens01/mig-ens01.vmdk',
      source: 'mig-ens01/mig-ens01.vmdk',
    });
    expect(b).toMatchObject({ volume: 'nfs-migration:20100/vm-20100-disk-1.qcow2', backing: '../../import/data.vmdk' });
  });

  it('find a VMDK in the storage as translateDiskPath does (import-dir: below import/)', () => {
    expect(sourceInStorage('[nfs-migration] app/app.vmdk', { datastore: 'nfs-migration' })).toBe('app/app.vmdk');
    expect(sourceInStorage('[nfs-migration] app.vmdk', { datastore: 'nfs-migration', layout: 'import-dir' })).toBe(
      'import/app.vmdk',
    );
    expect(sourceInStorage('[LocalDS_0] app.vmdk', { datastore: 'nfs-migration' })).toBeUndefined();
  });
});

describe("ferry's own guest edits", () => {
  const plan = conversionPlan(
    {
      vmName: 'v',
      family: 'linux',
      firmware: 'efi',
      nics: [{ slot: 'net0', mac: '00:50:56:01:00:05' }],
      disks: [{ slot: 'scsi0' }],
    },
    { ...CONVERSION_OFF, mode: 'linux', agentPackages: '/srv/agents' },
    {
      os: { type: 'linux', distro: 'debian', major: 12, minor: 0, product: '12', arch: 'x86_64', packageFormat: 'deb' },
      packages: [],
      bootloaderConfigs: ['/boot/efi/EFI/debian/grub.cfg'],
      efiFiles: ['EFI/debian/grubx64.efi'],
      networkFiles: [{ path: '/etc/network/interfaces', text: 'auto ens192\n' }],
      kernelCmdline: '',
      agentFolders: ['debian-12'],
    },
  );

  it('are the pins (a .link file each, one udev rule file), the UEFI copy and the package install, pins first', () => {
    expect(
      guestEdits(plan, 'deb').map((e) => [
        e.kind,
        e.kind === 'write' ? e.path : e.kind === 'copy-efi' ? e.to : e.folder,
      ]),
    ).toEqual([
      ['write', '/etc/systemd/network/10-ferry-ens192.link'],
      ['write', '/etc/udev/rules.d/70-ferry-persistent-net.rules'],
      ['install-packages', 'debian-12'],
      ['copy-efi', 'EFI/BOOT/BOOTX64.EFI'],
    ]);
    expect(() => guestEdits(plan, 'pacman')).toThrow(/format pacman/);
    expect(guestEdits({ convert: false, code: 'off', reason: 'off' }, 'deb')).toEqual([]);
  });

  it('install only the packages the guest lacks, with dpkg or rpm (offline)', () => {
    expect(installPackagesScript('debian-12', 'deb')).toContain("cd '/var/tmp/ferry-packages/debian-12'");
    expect(installPackagesScript('debian-12', 'deb')).toContain('dpkg -i $todo');
    expect(installPackagesScript('rhel-9', 'rpm')).toContain('rpm -U $todo');
  });
});
