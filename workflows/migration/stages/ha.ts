import { haSid } from '../../../src/domain/migration';
import type { MigrationRun } from '../run-context';

/** Whether the settings ask for HA (`migration.ha`). */
export function haWanted(run: MigrationRun): boolean {
  return run.settings.ha !== undefined;
}

/**
 * After the guest is proven up: the VM becomes an HA resource (its group on PVE 8, its rule on PVE 9).
 * Settings that do not fit the cluster fail here with the reason; the cutover's decision follows (fix
 * the cluster, e.g. create the group, and retry; or roll back).
 */
export async function registerHa(run: MigrationRun): Promise<undefined> {
  const ha = run.settings.ha!;
  const { vmid } = run.vm;
  run.status.ha = { sid: haSid(vmid), registered: false };
  const wanted = ha.group ? ` in group ${ha.group}` : ha.rule ? ` in rule ${ha.rule}` : '';
  const plan = await run.acts.cluster.registerHaResource.executeWithOptions(
    { summary: `register ${haSid(vmid)} as an HA resource${wanted}` },
    [{ vmid, ha }],
  );
  run.status.ha = {
    sid: plan.sid,
    ...(plan.group ? { group: plan.group } : {}),
    ...(plan.rule ? { rule: plan.rule } : {}),
    registered: true,
  };
  return undefined;
}

/**
 * Rollback, first of all: HA would start a VM the rollback stops (and PVE refuses to destroy an HA
 * resource without purge), so the VM leaves the HA configuration before anything else. Only when this
 * run asked for the registration.
 */
export async function removeHa(run: MigrationRun): Promise<void> {
  const registration = run.status.ha;
  if (!registration || !run.settings.ha) return;
  const { vmid } = run.vm;
  await run.acts.cluster.removeHaResource.executeWithOptions(
    { summary: `remove ${registration.sid} from the HA resources` },
    [{ vmid }],
  );
  run.status.ha = { ...registration, registered: false, removed: true };
}
