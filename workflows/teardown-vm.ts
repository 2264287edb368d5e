import {
  newTeardownStatus,
  teardownOutcome,
  type ProvisioningSettings,
  type TeardownOutcome,
  type TeardownResult,
} from '../src/domain/provisioning';
import { teardownStatusQuery } from '../src/domain/messages';
import { loadProvisioningSettings } from './provisioning/settings';
import { TeardownGate } from './teardown/gate';
import { TeardownRun } from './teardown/run-context';
import { awaitApproval } from './teardown/stages/approval';
import { runCleanups } from './teardown/stages/cleanups';
import { deletePveVm, recordNoVm } from './teardown/stages/delete';
import { stopPveVm } from './teardown/stages/stop';
import { readTarget } from './teardown/stages/target';
import { openStatus } from './vm/run';

export interface TeardownVmInput {
  vmid: number;
  /** The NetBox VM, when known (else found by its ferry_vmid). */
  netboxId?: number;
  /** Wait for a person to approve whatever the record's status. */
  requireApproval?: boolean;
  settings?: ProvisioningSettings;
}

/**
 * Removes one VM and its records: read what it has → (a person approves, when its record's status
 * asks for it) → graceful shutdown, forced stop after the timeout → wait until stopped → delete with
 * purge → each cleanup on its own (DNS, known_hosts, IP, interfaces and MACs, the NetBox VM). A cleanup
 * that fails is reported and the others go on; a rerun picks up the first run's target and finishes.
 */
export async function teardownVm(input: TeardownVmInput): Promise<TeardownResult> {
  const status = openStatus('teardown', newTeardownStatus(input.vmid, input.netboxId), teardownStatusQuery);
  const run = new TeardownRun(input.settings ?? (await loadProvisioningSettings()), status);
  run.named(`VM ${input.vmid}`, input.vmid);
  try {
    run.enter('resolve');
    const gate = new TeardownGate(status, run.settings.approvers, run.settings.approvals, () => run.showDetails());
    const outcome = await teardown(run, input, gate);
    status.outcome = outcome;
    run.end(outcome === 'torn-down' ? 'done' : outcome);
    return { ...status, outcome };
  } catch (err) {
    run.failed(err);
    run.end('failed');
    throw err;
  }
}

async function teardown(run: TeardownRun, input: TeardownVmInput, gate: TeardownGate): Promise<TeardownOutcome> {
  const target = await readTarget(run, input);
  const ended = await awaitApproval(run, gate, target, input.requireApproval);
  if (ended) return ended;
  const { node } = target;
  if (node) {
    await stopPveVm(run, { ...target, node });
    await deletePveVm(run, { ...target, node });
  } else recordNoVm(run, target.vmid);
  await runCleanups(run, target);
  return teardownOutcome(run.status.cleanups);
}
