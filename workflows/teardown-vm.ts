import { ApplicationFailure, condition, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import {
  approvalReason,
  CLEANUPS,
  mergeTargets,
  newTeardownStatus,
  teardownOutcome,
  type CleanupKind,
  type CleanupOutcome,
  type ProvisioningSettings,
  type TeardownOutcome,
  type TeardownResult,
  type TeardownStage,
  type TeardownStatus,
  type TeardownTarget,
} from '../src/domain/provisioning';
import { FerryKind, FerryStage, VmId, VmName } from '../src/domain/search-attributes';
import type { Activities } from '../activities';
import { workflowNow } from './clock';
import { failureMessage } from './failures';
import { teardownStatusQuery } from '../src/messages';
import { pollUntil } from './poll';
import { activityOptions, READ, run, type ActivityKinds } from './provisioning/proxies';
import { TeardownGate } from './provisioning/teardown-gate';

export interface TeardownVmInput {
  vmid: number;
  /** The NetBox VM, when known (else found by its ferry_vmid). */
  netboxId?: number;
  /** Wait for a person to approve whatever the record's status. */
  requireApproval?: boolean;
  settings?: ProvisioningSettings;
}

const STOP_TIMEOUT_MS = 10 * 60_000;

const CLEANUP_ACTIVITY: Record<CleanupKind, keyof Activities> = {
  dns: 'cleanupDns',
  'known-hosts': 'cleanupKnownHosts',
  ip: 'cleanupIps',
  interfaces: 'cleanupInterfaces',
  'netbox-vm': 'cleanupNetboxVm',
};

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
  const enter = (stage: TeardownStage) => {
    status.stage = stage;
    upsertSearchAttributes([{ key: FerryStage, value: stage }]);
  };
  let approvers: readonly string[] = [];
  const gate = new TeardownGate(status, () => approvers);
  try {
    enter('resolve');
    const settings = input.settings ?? (await run(READ, 'loadProvisioningSettings', 'read the provisioning settings (ferry.yaml)'));
    approvers = settings.approvers;
    const outcome = await teardown(input, settings, status, enter, gate);
    status.outcome = outcome;
    enter(outcome === 'torn-down' ? 'done' : outcome);
    return { ...status, outcome };
  } catch (err) {
    status.error = failureMessage(err);
    enter('failed');
    throw err;
  }
}

async function teardown(
  input: TeardownVmInput,
  settings: ProvisioningSettings,
  status: TeardownStatus,
  enter: (stage: TeardownStage) => void,
  gate: TeardownGate,
): Promise<TeardownOutcome> {
  const acts = activityOptions(settings);
  const { vmid } = input;
  const live = await run(acts.read, 'readTeardownTarget', `what VM ${vmid} has in Proxmox, NetBox and DNS`, { vmid, ...(input.netboxId !== undefined ? { netboxId: input.netboxId } : {}) });
  const { workflowId, runId } = workflowInfo();
  const previous = await run(acts.read, 'previousTeardown', `what an earlier run of ${workflowId} left`, { workflowId, runId });
  const target = mergeTargets(live, previous);
  status.target = target;
  if (previous) status.resumed = true;
  if (target.name) status.name = target.name;
  if (target.netboxId !== undefined) status.netboxId = target.netboxId;
  if (target.name) upsertSearchAttributes([{ key: VmName, value: target.name }]);

  // --- approval: a VM in service is not removed on one command ---
  const reason = approvalReason(target, settings.teardown.approvalFor, input.requireApproval);
  if (reason) {
    if (settings.approvers.length === 0) {
      throw ApplicationFailure.create({ type: 'NoApprovers', message: `${reason}, but provisioning.approvers is empty: nobody could approve; name the approvers in ferry.yaml`, nonRetryable: true });
    }
    status.approvalRequired = reason;
    enter('awaiting-approval');
    gate.openGate();
    const started = workflowNow();
    const deadline = settings.teardown.approvalDeadlineMs;
    const decided = deadline === undefined ? (await condition(() => gate.decided), true) : await condition(() => gate.decided, deadline);
    gate.closeGate();
    status.waits.push({ for: 'teardown approval', waitedMs: workflowNow() - started });
    if (!decided) return 'approval-expired';
    if (gate.rejection) {
      status.rejection = gate.rejection;
      return 'rejected';
    }
    status.approval = gate.approval;
  }

  await removeVm(target, settings, acts, status, enter);

  // --- cleanups: each on its own; a failure is reported, never hidden, and stops nothing ---
  enter('cleanup');
  for (const cleanup of CLEANUPS) status.cleanups.push(await runCleanup(cleanup, target, settings, acts));
  return teardownOutcome(status.cleanups);
}

async function removeVm(
  target: TeardownTarget,
  settings: ProvisioningSettings,
  acts: ActivityKinds,
  status: TeardownStatus,
  enter: (stage: TeardownStage) => void,
): Promise<void> {
  const { vmid, node } = target;
  if (!node) {
    status.steps.push({ step: 'delete', outcome: 'already', detail: `Proxmox has no VM ${vmid}` });
    return;
  }
  enter('shutdown');
  const timeoutMs = settings.teardown.shutdownTimeoutMs;
  const shut = await run(acts.shutdown(timeoutMs), 'shutdownVm', `shut down VM ${vmid} (ACPI), up to ${Math.round(timeoutMs / 1000)} s`, { node, vmid, timeoutMs });
  status.steps.push({
    step: 'shutdown',
    outcome: shut.result === 'shut-down' ? 'done' : shut.result === 'timed-out' ? 'timed-out' : 'already',
    ...(shut.result === 'timed-out' ? { detail: `the guest did not shut down within ${Math.round(timeoutMs / 1000)} s` } : {}),
  });
  if (shut.result === 'timed-out') {
    enter('stop');
    await run(acts.vmTask, 'stopVm', `stop VM ${vmid} hard (the guest ignored the shutdown)`, { node, vmid });
    status.steps.push({ step: 'stop', outcome: 'done', detail: 'forced' });
  }
  status.waits.push(
    await pollUntil(async () => (await run(acts.read, 'vmPowerState', `is VM ${vmid} stopped`, { node, vmid })).status !== 'running', {
      what: `VM ${vmid} stopped`,
      intervalMs: settings.pollIntervalMs,
      timeoutMs: STOP_TIMEOUT_MS,
    }),
  );
  enter('delete');
  const { deleted } = await run(acts.vmTask, 'deleteVm', `delete VM ${vmid}${target.name ? ` ${target.name}` : ''} with purge`, { node, vmid });
  status.steps.push({ step: 'delete', outcome: deleted ? 'done' : 'already', detail: deleted ? 'purged with its disks' : 'already gone' });
}

async function runCleanup(cleanup: CleanupKind, target: TeardownTarget, settings: ProvisioningSettings, acts: ActivityKinds): Promise<CleanupOutcome> {
  if (cleanup === 'known-hosts' && !settings.teardown.knownHosts) {
    return { cleanup, result: 'skipped', detail: 'provisioning.teardown.knownHosts is off' };
  }
  const summary = {
    dns: `remove DNS A/PTR of ${target.fqdn ?? target.name ?? target.vmid}`,
    'known-hosts': `remove known_hosts entries of ${target.name ?? target.vmid}`,
    ip: `release NetBox addresses of VM ${target.vmid}`,
    interfaces: `delete NetBox interfaces and MACs of VM ${target.vmid}`,
    'netbox-vm': `NetBox VM ${target.netboxId ?? '-'}: ${settings.teardown.netbox}`,
  }[cleanup];
  const args = cleanup === 'netbox-vm' ? { target, after: settings.teardown.netbox } : { target };
  try {
    return (await run(acts.cleanup(settings.teardown.cleanupAttempts), CLEANUP_ACTIVITY[cleanup], summary, args as never)) as CleanupOutcome;
  } catch (err) {
    return { cleanup, result: 'failed', detail: 'not done; a rerun of the teardown tries again', error: failureMessage(err) };
  }
}
