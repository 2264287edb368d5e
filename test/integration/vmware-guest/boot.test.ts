import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { OVMF_CODE, OVMF_VARS_TEMPLATE } from '../../../lab/guest-image/paths';
import { startServerProcess, type ServerProcess } from '../../../lab/server-process';
import { vmwareGuestImage, type VmwareFirmware } from '../../../lab/vmware-guest/paths';
import { writeVmwareGuestConfig } from '../../../lab/vmware-guest/per-vm-config';
import { STATE_DIR } from '../../../src/paths';

const run = promisify(execFile);

/**
 * The lab's VMware-native guest (scripts/setup.d/45-conversion.sh) is a guest for VMware's hardware and
 * no other: under QEMU (TCG) on VMware's PVSCSI controller and VMXNET3 NIC it finds its root and boots
 * to its login prompt; on Proxmox's virtio-scsi, unconverted, its initramfs (VMware's drivers only)
 * never finds the root disk. That is what conversion has to fix (test/integration/migration/real-guests).
 */
describe('VMware-native lab guest', () => {
  const image = vmwareGuestImage();
  const work =
    (mkdirSync(path.join(STATE_DIR, 'test'), { recursive: true }),
    mkdtempSync(path.join(STATE_DIR, 'test', 'vmware-guest-')));
  const running: ServerProcess[] = [];
  jest.setTimeout(600_000);

  afterAll(async () => {
    await Promise.all(running.map((q) => q.stop({ signal: 'SIGKILL' })));
    rmSync(work, { recursive: true, force: true });
  });

  async function boot(
    firmware: VmwareFirmware,
    controller: 'pvscsi' | 'virtio-scsi-pci',
    nic: 'vmxnet3' | 'virtio-net-pci',
  ): Promise<() => string> {
    const dir = path.join(work, `${firmware}-${controller}`);
    mkdirSync(dir);
    const disk = path.join(dir, 'disk.raw');
    await run('cp', ['--sparse=always', image.flat(firmware), disk]);
    await writeVmwareGuestConfig(
      disk,
      firmware,
      { hostname: `vmw-${firmware}`, nics: [{ address: '192.0.2.10/24', gateway: '192.0.2.254' }] },
      image,
    );
    const serial = path.join(dir, 'serial.log');
    const firmwareArgs: string[] = [];
    if (firmware === 'efi') {
      await run('cp', [OVMF_VARS_TEMPLATE, path.join(dir, 'vars.fd')]);
      firmwareArgs.push(
        '-machine',
        'q35',
        '-drive',
        `if=pflash,format=raw,readonly=on,file=${OVMF_CODE}`,
        '-drive',
        `if=pflash,format=raw,file=${path.join(dir, 'vars.fd')}`,
      );
    }
    running.push(
      startServerProcess(`qemu ${firmware} ${controller}`, 'qemu-system-x86_64', [
        '-accel',
        'tcg',
        '-m',
        '512',
        '-nodefaults',
        '-display',
        'none',
        '-no-reboot',
        ...firmwareArgs,
        '-chardev',
        `file,id=s0,path=${serial}`,
        '-serial',
        'chardev:s0',
        '-device',
        `${controller},id=scsi0`,
        '-drive',
        `file=${disk},format=raw,if=none,id=d0`,
        '-device',
        'scsi-hd,drive=d0,bus=scsi0.0',
        '-netdev',
        'user,id=n0,restrict=on',
        '-device',
        `${nic},netdev=n0,mac=00:50:56:01:00:99`,
      ]),
    );
    return () => (existsSync(serial) ? readFileSync(serial, 'utf8') : '');
  }

  async function until(serial: () => string, pattern: RegExp, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(serial())) {
      if (Date.now() > deadline)
        throw new Error(
          `no ${pattern} on the serial console within ${timeoutMs} ms; last lines:\n${serial().split('\n').slice(-20).join('\n')}`,
        );
      await new Promise((r) => setTimeout(r, 250));
    }
    return serial();
  }

  it('boots on VMware hardware (PVSCSI, VMXNET3) and does not find its root on virtio-scsi unconverted', async () => {
    // Both at once: their TCG boots overlap.
    const onVmware = await boot('bios', 'pvscsi', 'vmxnet3');
    const onVirtio = await boot('bios', 'virtio-scsi-pci', 'virtio-net-pci');
    // The initramfs prints "Gave up waiting for root file system device" first and the ALERT a moment
    // later: wait for the ALERT itself, not for its preamble.
    const [vmware, virtio] = await Promise.all([
      until(onVmware, /vmw-bios login:/, 540_000),
      until(onVirtio, /ALERT! +UUID=\S+ does not exist\.\s+Dropping to a shell!/, 540_000),
    ]);
    expect(vmware).toContain("Booting `Debian GNU/Linux'"); // booted by the guest's own GRUB (its serial terminal)
    expect(vmware).toContain('VMware PVSCSI storage adapter'); // the driver its initramfs has
    expect(vmware).toMatch(/vmxnet3 .* renamed from eth0/);
    expect(vmware).toMatch(/Welcome to .*Debian GNU\/Linux 12/); // the root it found
    expect(virtio).toMatch(/ALERT! +UUID=[0-9a-f-]+ does not exist\.\s+Dropping to a shell!/);
    expect(virtio).not.toMatch(/virtio_scsi|virtio_blk/);
  });
});
