import { setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import {
  newTeardownStatus,
  teardownOutcome,
  type ProvisioningSettings,
  type TeardownOutcome,
  type TeardownResult,
} from '../src/domain/provisioning';
import type { ApprovalPolicy } from '../src/domain/approvals';
import { FerryKind, VmId } from '../src/domain/search-attributes';
import { teardownStatusQuery } from '../src/domain/messages';
import { failureMessage } from './failures';
import { loadSettings } from './provisioning/proxies';
import { stageSetter } from './provisioning/stage';
import { TeardownGate } from './teardown/gate';
import { teardownRun, type TeardownRun } from './teardown/run-context';
import { awaitApproval } from './teardown/stages/approval';
import { runCleanups } from './teardown/stages/cleanups';
import { deletePveVm, recordNoVm } from './teardown/stages/delete';
import { stopPveVm } from './teardown/stages/stop';
import { readTarget } from './teardown/stages/target';

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
  const status = newTeardownStatus(input.vmid, input.netboxId);
  setHandler(teardownStatusQuery, () => status);
  upsertSearchAttributes([
    { key: FerryKind, value: 'teardown' },
    { key: VmId, value: input.vmid },
  ]);
  const enter = stageSetter(status);
  let approvers: readonly string[] = [];
  let approvals: ApprovalPolicy | undefined;
  const gate = new TeardownGate(
    status,
    () => approvers,
    () => approvals,
  );
  try {
    enter('resolve');
    const settings = input.settings ?? (await loadSettings());
    approvers = settings.approvers;
    approvals = settings.approvals;
    const outcome = await teardown(teardownRun(settings, status, enter), input, gate);
    status.outcome = outcome;
    enter(outcome === 'torn-down' ? 'done' : outcome);
    return { ...status, outcome };
  } catch (err) {
    status.error = failureMessage(err);
    enter('failed');
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
