import { globMatches } from '../placement/match';

/**
 * Which guests ferry converts at cutover (virt-v2v-in-place on an overlay of their disks): `off` none,
 * `linux` Linux guests, `all` Linux and Windows (Windows needs `virtioWin`).
 */
export type ConversionMode = 'off' | 'linux' | 'all';

/** How a converter runs its appliance: `auto` probes once whether KVM boots a kernel, else TCG. */
export type ConversionAccel = 'auto' | 'kvm' | 'tcg';
/** How a convert worker runs its conversions: `low` yields the CPU to everything else (see atPriority). */
export type ConversionPriority = 'low' | 'normal';

/**
 * `migration.conversion`, resolved for a run (no secrets; paths are where ferry-convert workers see them).
 * Absent in runs started before conversion existed: nothing is converted and device choices stay as they were.
 */
export interface ConversionSettings {
  mode: ConversionMode;
  /** VMware names (globs `*`, `?`) → mode, first match wins over `mode`; a wave's `conversion` replaces `mode`. */
  overrides: Array<{ vm: string; mode: ConversionMode }>;
  /** VirtIO drivers for Windows (a directory or the virtio-win ISO), on the convert workers: virt-v2v's VIRTIO_WIN. */
  virtioWin?: string;
  /**
   * Packages of the QEMU guest agent to install into a Linux guest that has none, offline: a directory with
   * one folder per distribution and major version (`debian-12/*.deb`, `rhel-9/*.rpm`). Without it (or
   * without a folder for the guest) the guest gets no agent, and verify-guest, which asks the agent, fails.
   */
  agentPackages?: string;
  accel: ConversionAccel;
  /** One conversion (overlays, guest changes, virt-v2v) may take this long before it counts as failed. */
  timeoutMs: number;
}

export const CONVERSION_OFF: ConversionSettings = { mode: 'off', overrides: [], accel: 'auto', timeoutMs: 60 * 60_000 };

/** The mode for one VM: its first matching override, else the run's mode. */
export function conversionModeFor(
  vmName: string,
  settings: Pick<ConversionSettings, 'mode' | 'overrides'>,
): ConversionMode {
  return settings.overrides.find((o) => globMatches(o.vm, vmName))?.mode ?? settings.mode;
}
