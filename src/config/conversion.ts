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
  yieldToCutovers: true as const,
  timeout: '1h',
};

/**
 * `yieldToCutovers`: `true` (the default: pauses of at most 30 s), `false`, or `{ atMost: <duration> }`.
 * See src/domain/conversion/yield-to-cutovers.ts.
 */
const yieldToCutovers = z
  .union([z.boolean(), z.object({ atMost: duration.default('30s') }).strict()], {
    message: "true, false or { atMost: <duration> } (the longest one pause lasts, e.g. '30s')",
  })
  .default(true);

export const DEFAULT_YIELD_AT_MOST = '30s';

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
        /**
         * While a VM's cutover (shutdown to verified) runs activities on a worker, that worker's conversions
         * pause (SIGSTOP), each pause at most `atMost`, then they run at least as long: a cutover of seconds
         * never shares the host's CPU with conversions of minutes.
         */
        yieldToCutovers,
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

/** The longest pause of the worker's conversions for cutovers, or undefined when they never yield. */
export function yieldAtMostMs(c: Pick<ConversionConfig, 'yieldToCutovers'>): number | undefined {
  const y = c.yieldToCutovers;
  if (y === false) return undefined;
  const atMost = durationToMs(y === true ? DEFAULT_YIELD_AT_MOST : y.atMost);
  return atMost > 0 ? atMost : undefined;
}
