import type { VmPlacement } from '../placement/vm-settings';
import type { PowerState } from '../inventory';
import type { VmAssessment } from './assess';
import type { TpmStateSpec } from '../pve-vm-spec';
import type { PlannedCdrom } from './cdrom';
import { powerStateWarnings } from './power-state';
import type { CutoverMode } from './settings';
import { LIVE_IMPORT_RISK, OVERLAY_RISK } from './guest-writes';
import type { CutoverSchedule } from './cutover-window';
import type { ConversionPlan } from '../conversion/decision';

/** Assumed until the wave has measured its own imports. */
export const ASSUMED_IMPORT_BYTES_PER_SECOND = 100 * 1024 * 1024;
/** Time for a guest to shut down and for the Proxmox VM to boot, when nothing better is known. */
export const ASSUMED_SHUTDOWN_SECONDS = 60;
export const ASSUMED_BOOT_SECONDS = 60;
/** A guest conversion (two libguestfs appliances and an initramfs rebuild) when nothing better is known. */
export const ASSUMED_CONVERSION_SECONDS = 180;

export interface Throughput {
  bytesPerSecond: number;
  /** Measured from this wave's finished imports, or assumed. */
  measured: boolean;
}

export interface CutoverPlan {
  vm: string;
  vmid?: number;
  mode: CutoverMode;
  targetStorage: string;
  disks: Array<{ slot: string; disk: string; sizeBytes: number }>;
  totalBytes: number;
  nics: Array<{ slot: string; mac: string; vnet: string; source: string }>;
  /** CD drives, with what did not come along (absent when none). */
  cdroms?: PlannedCdrom[];
  /** The new TPM (absent when none). */
  tpm?: TpmStateSpec;
  /** Expected time the service is down: shutdown (+ conversion) + copy (import), or + one boot (live-import, overlay). */
  expectedDowntimeSeconds: number;
  throughput: Throughput;
  /**
   * What an approver must know first: have BitLocker recovery keys ready (a new TPM); a suspended VM
   * will be refused; a powered-off one stays off on rollback; live-import loses the guest's writes if its stream fails.
   */
  warnings: string[];
  /** When it will start (a cutover window, `approve --at`); absent when it starts as soon as approved. Not signed. */
  schedule?: CutoverSchedule;
  /** The node, each disk's storage and the node's memory commitment after (signed: a `ferry place` changes the plan). */
  placement?: VmPlacement;
  /** What conversion will do to the guest, or why it will not run (signed; absent without migration.conversion). */
  conversion?: ConversionPlan;
}

export function cutoverPlan(
  a: VmAssessment,
  mode: CutoverMode,
  targetStorage: string,
  throughput: Throughput,
  powerState?: PowerState,
  conversion: ConversionPlan | undefined = a.conversion,
): CutoverPlan {
  const totalBytes = a.disks.reduce((sum, d) => sum + d.capacityBytes, 0);
  const copySeconds = throughput.bytesPerSecond > 0 ? totalBytes / throughput.bytesPerSecond : Number.POSITIVE_INFINITY;
  const expectedDowntimeSeconds = Math.ceil(
    // import copies every byte while the VM is off; live-import and overlay boot at once (the copy follows).
    ASSUMED_SHUTDOWN_SECONDS +
      (conversion?.convert ? ASSUMED_CONVERSION_SECONDS : 0) +
      (mode === 'import' ? copySeconds : ASSUMED_BOOT_SECONDS),
  );
  return {
    vm: a.pveName,
    vmid: a.vmid,
    mode,
    targetStorage,
    disks: a.disks.map((d) => ({ slot: d.slot, disk: d.source, sizeBytes: d.capacityBytes })),
    totalBytes,
    nics: a.nics.map((n) => ({ slot: n.slot, mac: n.mac, vnet: n.bridge, source: n.source })),
    ...(a.cdroms?.length ? { cdroms: a.cdroms } : {}),
    ...(a.tpm ? { tpm: a.tpm } : {}),
    expectedDowntimeSeconds,
    throughput,
    warnings: [
      ...(a.warnings ?? []),
      ...(powerState ? powerStateWarnings(a.name, powerState) : []),
      ...(mode === 'live-import' ? [LIVE_IMPORT_RISK] : mode === 'overlay' ? [OVERLAY_RISK] : []),
      ...(conversion?.convert ? conversion.warnings : []),
    ],
    ...(conversion ? { conversion } : {}),
  };
}

/**
 * Average throughput of finished imports (bytes over seconds), or the assumption when there are none.
 * Disks found already imported (0 seconds) copied nothing: counting their bytes would inflate it.
 */
export function measuredThroughput(all: ReadonlyArray<{ bytes: number; seconds: number }>): Throughput {
  const imports = all.filter((i) => i.seconds > 0);
  const bytes = imports.reduce((s, i) => s + i.bytes, 0);
  const seconds = imports.reduce((s, i) => s + i.seconds, 0);
  if (bytes <= 0 || seconds <= 0) return { bytesPerSecond: ASSUMED_IMPORT_BYTES_PER_SECOND, measured: false };
  return { bytesPerSecond: Math.round(bytes / seconds), measured: true };
}
