import { readFileSync } from 'node:fs';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { sshSign } from '../src/approval-signing';
import {
  approvalStatement,
  changePlanDigest,
  cutoverPlanDigest,
  teardownPlanDigest,
  type ApprovalSignature,
  type CoveredVm,
  type SignedAction,
} from '../src/domain/approvals';
import type { CutoverPlan } from '../src/domain/migration';
import { describePlacement } from './render-placement';
import { describeChange } from '../src/domain/change';
import { CHANGE_VM_WORKFLOW_TYPE } from '../src/domain/change-vm';
import { changeStatusQuery, cutoverPlanQuery, teardownStatusQuery, waveStatusQuery } from '../src/domain/messages';
import { UsageError } from './errors';

export interface SigningFlags {
  by: string;
  reason: string;
  vms?: string[];
  /** SSH private key (or its .pub with ssh-agent) for `ssh-keygen -Y sign`. */
  key?: string;
  /** A signature made elsewhere (armored SSHSIG or raw ed25519, base64) of the statement --print-statement shows. */
  signatureFile?: string;
  /** A day-2 change: the approval asks ferry to restart the VM (signed: part of the plan's digest). */
  restart?: boolean;
}

/** What is signed for one approval: the action, and the workflow and plan(s) it names. */
export interface Unsigned {
  action: SignedAction;
  statement: Omit<ApprovalSignature, 'signature'>;
  /** The plan(s) as the approver should read them before signing. */
  shown: string[];
}

/**
 * Reads what the approval will cover, from the workflow itself: a VM's cutover plan, a teardown's
 * target, a day-2 change's gated changes, or each waiting VM of a wave (or the --vms named) with its plan. The workflow computes the
 * same digests, so a plan that changes after this read makes the signature fail there.
 */
export async function whatIsSigned(
  client: Client,
  handle: WorkflowHandle,
  type: string,
  flags: SigningFlags,
): Promise<Unsigned> {
  const workflowId = handle.workflowId;
  if (type === 'teardownVm') {
    const target = (await handle.query(teardownStatusQuery)).target;
    if (!target) throw new UsageError(`${workflowId} has not read its target yet: approve once it waits for approval`);
    return {
      action: 'approve-teardown',
      statement: { workflowId, plan: teardownPlanDigest(target) },
      shown: [`teardown target: ${JSON.stringify(target)}`],
    };
  }
  if (type === CHANGE_VM_WORKFLOW_TYPE) return changeSigned(handle, flags.restart === true);
  if (type !== 'migrationWave') {
    const plan = await handle.query(cutoverPlanQuery);
    if (!plan)
      throw new UsageError(
        `${workflowId} has no cutover plan yet (it is still being assessed): approve once it has one`,
      );
    return {
      action: 'approve-cutover',
      statement: { workflowId, plan: cutoverPlanDigest(plan) },
      shown: [describePlan(plan)],
    };
  }
  const status = await handle.query(waveStatusQuery);
  const named = flags.vms ?? status.vms.map((vm) => vm.name);
  const unknown = named.filter((name) => !status.vms.some((vm) => vm.name === name));
  if (unknown.length) throw new UsageError(`not in wave ${workflowId}: ${unknown.join(', ')}`);
  const covers: CoveredVm[] = [];
  const shown: string[] = [];
  for (const vm of status.vms.filter((v) => named.includes(v.name) && v.state === 'running')) {
    const plan = await client.workflow
      .getHandle(vm.workflowId)
      .query(cutoverPlanQuery)
      .catch(() => undefined);
    if (!plan) continue;
    covers.push({ workflowId: vm.workflowId, plan: cutoverPlanDigest(plan) });
    shown.push(describePlan(plan));
  }
  const left = named.filter(
    (name) => !status.vms.some((vm) => vm.name === name && covers.some((c) => c.workflowId === vm.workflowId)),
  );
  if (flags.vms && left.length)
    throw new UsageError(`no cutover plan to sign yet for ${left.join(', ')}: approve them once they have one`);
  if (!covers.length)
    throw new UsageError(`no VM of ${workflowId} has a cutover plan to sign yet: approve once they wait for approval`);
  if (left.length) shown.push(`not covered (no plan yet, or finished): ${left.join(', ')}`);
  return { action: 'approve-cutover', statement: { workflowId, covers }, shown };
}

/**
 * A day-2 change: the changes its gate holds (those that wait for a restart or need the VM stopped) and
 * the restart choice, digested as the workflow's ChangeGate digests its current plan
 * (`changePlanDigest(status.plan, decision.restart)`): a plan made again after this read fails there.
 */
async function changeSigned(handle: WorkflowHandle, restart: boolean): Promise<Unsigned> {
  const workflowId = handle.workflowId;
  const status = await handle.query(changeStatusQuery);
  if (!status.plan || status.stage !== 'awaiting-approval')
    throw new UsageError(
      `${workflowId} does not wait for an approval (stage ${status.stage}): approve once it waits for one`,
    );
  const gated = status.plan.changes.filter((c) => c.operation && (c.waitsForRestart || c.class === 'needs-stop'));
  return {
    action: 'approve-change',
    statement: { workflowId, plan: changePlanDigest(status.plan, restart) },
    shown: [
      `VM ${status.vmid}${status.name ? ` ${status.name}` : ''}: ${restart ? 'ferry restarts the VM' : 'written, pending until the VM’s next start (ferry does not restart it)'}`,
      ...gated.map((c) => describeChange(c)),
    ],
  };
}

function describePlan(p: CutoverPlan): string {
  const disks = p.disks.map((d) => `${d.slot} ${d.disk} ${(d.sizeBytes / 2 ** 30).toFixed(1)} GiB`).join('; ');
  const nics = p.nics.map((n) => `${n.slot} ${n.mac} → ${n.vnet}`).join('; ');
  const warnings = (p.warnings ?? []).map((w) => `\n  WARNING: ${w}`).join('');
  const placed = p.placement ? `; on ${describePlacement(p.placement)}` : '';
  return `${p.vm} (VMID ${p.vmid ?? '?'}): ${p.mode} to ${p.targetStorage}${placed}; disks ${disks || 'none'}; NICs ${nics || 'none'}; expected downtime ~${p.expectedDowntimeSeconds}s${warnings}`;
}

/** The text to sign for these flags (what --print-statement shows). */
export function statementOf(unsigned: Unsigned, flags: SigningFlags): string {
  return approvalStatement(unsigned.action, flags.by, flags.reason, unsigned.statement);
}

/** Signs with --key (ssh-keygen) or takes --signature's file. */
export async function sign(unsigned: Unsigned, flags: SigningFlags): Promise<ApprovalSignature> {
  const statement = statementOf(unsigned, flags);
  const signature = flags.key ? await sshSign(flags.key, statement) : readFileSync(flags.signatureFile!, 'utf8').trim();
  return { ...unsigned.statement, signature };
}
