import { ApplicationFailure, upsertSearchAttributes } from '@temporalio/workflow';
import { planFromRecord, type ChangePlan } from '../src/domain/change';
import { FerryKind } from '../src/domain/search-attributes';
import { reads } from './vm/proxies';

export interface PlanChangeResult {
  netboxId: number;
  name: string;
  vmid: number;
  plan?: ChangePlan;
  /** Why the record cannot be planned (provisioning's translation refused it). */
  problems?: string[];
}

/**
 * The day-2 dry run (`ferry plan --change`): reads the NetBox record and the Proxmox VM, writes nothing,
 * and returns the plan `changeVm` would carry out now, made by the same function.
 */
export async function planChange(input: { netboxId: number }): Promise<PlanChangeResult> {
  upsertSearchAttributes([{ key: FerryKind, value: 'plan' }]);
  const settings = await reads.loadChangeSettings.executeWithOptions({ summary: 'load the change settings' }, []);
  const record = await reads.readChangeRecord.executeWithOptions(
    { summary: `NetBox VM ${input.netboxId} with its interfaces and disks` },
    [input],
  );
  const vmid = record.record.fields.vmid;
  if (vmid === undefined)
    throw ApplicationFailure.nonRetryable(
      `NetBox VM ${record.record.name} (id ${input.netboxId}) has no ferry_vmid: it was not built by ferry, so there is nothing to change (provision it first)`,
      'NotBuilt',
    );
  const reality = await reads.readVmState.executeWithOptions(
    { summary: `VM ${vmid}: config, pending, power, storages` },
    [{ vmid }],
  );
  const planned = planFromRecord(record, reality, settings);
  const base = { netboxId: input.netboxId, name: record.record.name, vmid };
  return 'problems' in planned ? { ...base, problems: planned.problems } : { ...base, plan: planned.plan };
}
