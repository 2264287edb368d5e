import { readFileSync } from 'node:fs';

/**
 * get_host_phys_address_bits (PVE/QemuServer/Memory.pm): the host's physical address bits from
 * /proc/cpuinfo, undefined when it does not say (qemu-server then assumes 36).
 */
let cached: number | undefined | null = null;

export function hostPhysicalBits(): number | undefined {
  if (cached !== null) return cached;
  try {
    const m = /^address sizes\s*:\s*(\d+)\s*bits physical/im.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    cached = m ? Number(m[1]) : undefined;
  } catch {
    cached = undefined;
  }
  return cached;
}
