import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import type { ConversionAccel } from '../domain/conversion';

let probed: Promise<'kvm' | 'tcg'> | undefined;

/**
 * KVM or TCG for libguestfs's appliance. `/dev/kvm` existing proves nothing (nested hosts without
 * vmx/svm hang a Linux guest under KVM): for `auto` a probe boots the host's kernel under KVM once per
 * process and takes KVM only if the kernel prints its banner within a few seconds.
 */
export function applianceAccel(wanted: ConversionAccel): Promise<'kvm' | 'tcg'> {
  if (wanted !== 'auto') return Promise.resolve(wanted);
  probed ??= probeKvm();
  return probed;
}

async function probeKvm(timeoutMs = 8_000): Promise<'kvm' | 'tcg'> {
  const kernel = hostKernel();
  if (!kernel) return 'tcg';
  return await new Promise((resolve) => {
    const qemu = spawn(
      'qemu-system-x86_64',
      [
        '-accel',
        'kvm',
        '-m',
        '256',
        '-nodefaults',
        '-display',
        'none',
        '-no-reboot',
        '-serial',
        'stdio',
        '-kernel',
        kernel,
        '-append',
        'console=ttyS0 panic=-1',
      ],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    let out = '';
    const done = (accel: 'kvm' | 'tcg') => {
      clearTimeout(timer);
      qemu.kill('SIGKILL');
      resolve(accel);
    };
    const timer = setTimeout(() => done('tcg'), timeoutMs);
    qemu.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Linux version')) done('kvm');
    });
    qemu.on('error', () => done('tcg'));
    qemu.on('exit', () => done(out.includes('Linux version') ? 'kvm' : 'tcg'));
  });
}

function hostKernel(): string | undefined {
  try {
    const kernels = readdirSync('/boot')
      .filter((f) => f.startsWith('vmlinuz-'))
      .sort();
    return kernels.length ? `/boot/${kernels.at(-1)}` : undefined;
  } catch {
    return undefined;
  }
}
