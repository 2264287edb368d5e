import type { ApprovalPolicy } from '../approvals/statement';
import type { PlacementSettings } from '../placement/types';
import type { MigrationRules } from './assess';
import type { DatastoreMapping } from './disks';
import type { HaSettings } from './ha';
import type { VerifySettings } from './verification';
import type { ConversionMode } from '../conversion/settings';

/**
 * `import`: disks copied with import-from while the VM is off, then started if asked. `live-import`: the
 * VM is created at cutover with live-restore: it runs at once while PVE streams the disks in.
 * `overlay`: the VM starts at once from qcow2 overlays of its VMware disks on the migration datastore;
 * once its guest is verified, each disk moves live to its target storage (PVE's move_disk, drive-mirror),
 * and a move that fails leaves it running on its overlay with nothing lost.
 */
export type CutoverMode = 'import' | 'live-import' | 'overlay';

/**
 * Everything a migration workflow needs to decide, resolved from ferry.yaml by an activity once and
 * passed down (wave → VM), so a run never changes its mind mid-way when the config file changes.
 * Contains no secrets.
 */
export interface MigrationSettings {
  /** vCenter host, used in workflow ids and descriptions. */
  vcenter: string;
  node: string;
  targetStorage: string;
  migrationDatastore: string;
  datastores: DatastoreMapping[];
  rules: MigrationRules;
  approvers: string[];
  /** How approvals are checked (signed: by the approvers' keys); absent in runs from before signed approvals: names alone. */
  approvals?: ApprovalPolicy;
  relocateTimeoutMs: number;
  /** A long activity silent for this long counts as lost (its worker died) and is retried. */
  heartbeatTimeoutMs: number;
  cutover: {
    mode: CutoverMode;
    shutdownTimeoutMs: number;
    forcePowerOff: boolean;
    startAfter: boolean;
    approvalDeadlineMs?: number;
    importTimeoutMs: number;
    /**
     * Shells get `agent: enabled=1`, so verify-guest can ask the guest agent. Absent in runs started
     * before it existed: treat as true (guestAgentEnabled).
     */
    guestAgent?: boolean;
    /** overlay: each live move's bandwidth (MiB/s), PVE's move_disk bwlimit; absent: unlimited. */
    moveBandwidthMiBps?: number;
  };
  /** How verify-guest proves the guest is up (absent in runs started before it existed: verifySettingsOf). */
  verify?: VerifySettings;
  /** `convert`: guest conversions at once (absent in runs started before conversion: it had none). */
  limits: { vmotion: number; importPerStorage: number; sdn: number; vmStart: number; convert?: number };
  /** How a wave places its VMs (absent in runs started before placement: every VM on `node`, every disk on `targetStorage`). */
  placement?: PlacementSettings;
  /**
   * Per disk label, the storage placement chose (a wave's VM workflow; absent: targetStorage for
   * every disk). `node` and `targetStorage` are then the placed node and the first disk's storage.
   */
  diskStorages?: Record<string, string>;
  /** HA registration after a verified cutover (absent: ferry leaves HA alone; runs from before it have none). */
  ha?: HaSettings;
}

export function migrateVmWorkflowId(vcenter: string, moid: string): string {
  return `migrate-${vcenter}-${moid}`;
}

/** Whether shells get the guest agent (default on). */
export function guestAgentEnabled(settings: Pick<MigrationSettings, 'cutover'>): boolean {
  return settings.cutover.guestAgent !== false;
}

/** A wave's own conversion mode (wave file `conversion`) in place of migration.conversion.mode; its overrides still apply. */
export function withWaveConversion(settings: MigrationSettings, mode: ConversionMode | undefined): MigrationSettings {
  const conversion = settings.rules.conversion;
  if (!mode || !conversion) return settings;
  return { ...settings, rules: { ...settings.rules, conversion: { ...conversion, mode } } };
}
