import type { ChangeRecord } from '../../../activities/change-contract';
import { planFromRecord, type ChangePlan } from '../../../src/domain/change';
import type { ChangeRun } from '../run-context';

export interface Planned {
  plan: ChangePlan;
  record: ChangeRecord;
}

/** Reads both sides as they are now and plans; a record provisioning could not build refuses the run. */
export async function readAndPlan(run: ChangeRun): Promise<Planned | undefined> {
  const { netboxId, vmid } = run.status;
  run.enter('read');
  const [record, reality] = await Promise.all([
    run.acts.read.readChangeRecord.executeWithOptions(
      { summary: `NetBox VM ${netboxId} with its interfaces and disks` },
      [{ netboxId }],
    ),
    run.acts.read.readVmState.executeWithOptions({ summary: `VM ${vmid}: config, pending, power, storages` }, [
      { vmid },
    ]),
  ]);
  run.named(record.record.name, vmid);
  Object.assign(run.status, { name: record.record.name, node: reality.node });
  run.enter('plan');
  const planned = planFromRecord(record, reality, run.settings);
  if ('problems' in planned) {
    run.status.problems = planned.problems;
    return undefined;
  }
  run.status.plan = planned.plan;
  return { plan: planned.plan, record };
}
