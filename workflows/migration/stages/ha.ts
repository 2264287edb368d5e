import { patched, proxyActivities } from '@temporalio/workflow';
import type { HaActivities } from '../../../activities/ha-contract';
import { haSid } from '../../../src/domain/migration';
import type { MigrationRun } from '../run-context';

/**
 * `migration.ha`: new commands in the cutover (registration) and the rollback (removal). Runs whose
 * settings have no `ha` — every run recorded before it existed — never reach the marker.
 */
export const HA_PATCH = 'migration-ha-registration';

/** Short cluster-config writes; transient trouble retried with backoff, refusals fail at once. */
const haWrites = proxyActivities<HaActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 10 },
});

/**
 * After the guest is proven up: the VM becomes an HA resource (its group on PVE 8, its rule on PVE 9).
 * Settings that do not fit the cluster fail here with the reason; the cutover's decision follows (fix
 * the cluster, e.g. create the group, and retry; or roll back).
 */
export async function registerHa(run: MigrationRun): Promise<void> {
  const ha = run.settings.ha;
  if (!ha || !patched(HA_PATCH)) return;
  const { vmid } = run.vm;
  run.status.ha = { sid: haSid(vmid), registered: false };
  const wanted = ha.group ? ` in group ${ha.group}` : ha.rule ? ` in rule ${ha.rule}` : '';
  const plan = await haWrites.registerHaResource.executeWithOptions(
    { summary: `register ${haSid(vmid)} as an HA resource${wanted}` },
    [{ vmid, ha }],
  );
  run.status.ha = {
    sid: plan.sid,
    ...(plan.group ? { group: plan.group } : {}),
    ...(plan.rule ? { rule: plan.rule } : {}),
    registered: true,
  };
}

/**
 * Rollback, first of all: HA would start a VM the rollback stops (and PVE refuses to destroy an HA
 * resource without purge), so the VM leaves the HA configuration before anything else. Only when this
 * run asked for the registration.
 */
export async function removeHa(run: MigrationRun): Promise<void> {
  const registration = run.status.ha;
  if (!registration || !run.settings.ha || !patched(HA_PATCH)) return;
  const { vmid } = run.vm;
  await haWrites.removeHaResource.executeWithOptions({ summary: `remove ${registration.sid} from the HA resources` }, [
    { vmid },
  ]);
  run.status.ha = { ...registration, registered: false, removed: true };
}
