import { z } from 'zod';
import type { ConversionSettings } from '../domain/conversion';
import { duration, durationToMs } from './common';

const mode = z.enum(['off', 'linux', 'all'], {
  message: "'off', 'linux' (Linux guests) or 'all' (Linux and Windows; Windows needs virtioWin)",
});
const workerPath = (what: string) => z.string().regex(/^\//, `an absolute path on the convert workers (${what})`);

const DEFAULTS = {
  mode: 'off' as const,
  overrides: {},
  accel: 'auto' as const,
  priority: 'low' as const,
  timeout: '1h',
};

/**
 * `migration.conversion`: guest conversion at cutover with virt-v2v-in-place on overlays of the VMware
 * disks (src/domain/conversion). A plain mode (`conversion: linux`) stands for `{ mode: linux }`.
 */
export const conversionSection = z
  .preprocess(
    (value) => (typeof value === 'string' ? { mode: value } : value),
    z
      .object({
        mode: mode.default('off'),
        /** VMware names (globs) → mode, for VMs that differ from `mode`; the first match wins. */
        overrides: z.record(z.string().min(1, 'a VM name or glob'), mode).default({}),
        /** The virtio-win ISO or folder for Windows guests (virt-v2v's VIRTIO_WIN). */
        virtioWin: workerPath('the virtio-win ISO or folder').optional(),
        /** Agent packages for guests that have none: `<dir>/<distro>-<major>/*.deb|*.rpm` (e.g. debian-12). */
        agentPackages: workerPath('a folder with one sub-folder per distribution, e.g. debian-12').optional(),
        /** The appliance's accelerator: `auto` probes KVM once per worker (it hangs on hosts without nested virtualisation), else TCG. */
        accel: z.enum(['auto', 'kvm', 'tcg']).default('auto'),
        /**
         * The CPU priority of the appliances and virt-v2v: `low` (SCHED_IDLE, nice 19) gives a conversion
         * only the CPU nothing else wants, so cutovers beside it keep their pace; `normal` shares it evenly.
         */
        priority: z.enum(['low', 'normal']).default('low'),
        /** One VM's conversion (overlays, guest edits, virt-v2v) may take this long. */
        timeout: duration.default('1h'),
      })
      .strict(),
  )
  .default(DEFAULTS);

export type ConversionConfig = z.infer<typeof conversionSection>;

/** The section as a run carries it (overrides in the order written, durations in ms). */
export function conversionSettings(c: ConversionConfig): ConversionSettings {
  return {
    mode: c.mode,
    overrides: Object.entries(c.overrides).map(([vm, m]) => ({ vm, mode: m })),
    ...(c.virtioWin ? { virtioWin: c.virtioWin } : {}),
    ...(c.agentPackages ? { agentPackages: c.agentPackages } : {}),
    accel: c.accel,
    timeoutMs: durationToMs(c.timeout),
  };
}
