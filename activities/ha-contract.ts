import type { HaPlan, HaSettings } from '../src/domain/migration';

/** The HA registration of a migrated VM (`migration.ha`), by name and shape. */
export interface HaActivities {
  /**
   * Makes VM `vmid` an HA resource as `migration.ha` says (group on PVE 8, rule on PVE 9); settings that
   * do not fit the cluster fail non-retryable with the reason. Found already registered: nothing changes.
   */
  registerHaResource(input: { vmid: number; ha: HaSettings }): Promise<HaPlan & { created: boolean }>;
  /** Takes VM `vmid` out of the HA resources (and, PVE 9, out of the rules naming it); not there: nothing to do. */
  removeHaResource(input: { vmid: number }): Promise<{ removed: boolean }>;
}
