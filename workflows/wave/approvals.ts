import { ApplicationFailure } from '@temporalio/common';
import { getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import { signedApprovalProblem } from '../../src/domain/approvals';
import {
  approvalCovers,
  approvedBy,
  decisionProblem,
  notBeforeProblem,
  type CutoverApproval,
  type MigrationSettings,
  type WaveApproval,
  type WaveVm,
} from '../../src/domain/migration';
import { approveCutoverSignal, approveWaveSignal, approveWaveUpdate } from '../../src/domain/messages';
import { workflowNow } from '../clock';
import type { SignalsInFlight } from './signals-in-flight';
import type { WaveState } from './state';

const AUTO_APPROVE_SIGNED =
  'approvals are signed here, and a signature covers VM plans, which do not exist when the wave starts: approve with `ferry approve <wave> --key <ssh key>` once the VMs wait';

/**
 * The wave's approvals: one covers every VM of the wave or the named ones, and is passed on to each
 * covered VM workflow, running now or started later. One that cannot be taken is recorded in
 * `status.ignored` (an update is also answered with the reason); a signal that comes before the settings
 * (the approvers) are known waits for them.
 */
export class WaveApprovals {
  /** Approval signals that came before the settings were loaded. */
  private readonly early: CutoverApproval[] = [];

  constructor(
    private readonly wave: WaveState,
    private readonly signals: SignalsInFlight,
  ) {
    setHandler(approveWaveUpdate, (decision) => {
      const problem = this.refused(decision, 'update');
      if (problem) throw ApplicationFailure.nonRetryable(problem, 'DecisionRefused');
      this.approve(decision, 'update');
      return wave.report();
    });
    setHandler(approveWaveSignal, (decision) => {
      if (wave.settings) this.takeSignal(decision);
      else this.early.push(decision);
    });
  }

  /** The settings are known: the signals that waited for them are taken, in the order they came. */
  settingsLoaded(): void {
    for (const decision of this.early.splice(0)) this.takeSignal(decision);
  }

  /**
   * `autoApprove` is refused at once unless a known approver gives it, and under `approvals: signed`
   * always: nothing can be signed before the VMs have plans.
   */
  checkAutoApprove(decision: CutoverApproval | undefined, settings: MigrationSettings): void {
    if (!decision) return;
    const signed = settings.approvals?.mode === 'signed';
    const problem = decisionProblem(decision, settings.approvers) ?? (signed ? AUTO_APPROVE_SIGNED : undefined);
    if (problem) throw new Error(`autoApprove refused: ${problem}`);
  }

  approve(decision: CutoverApproval, via: 'update' | 'signal'): void {
    const { signed } = decision;
    const vms = signed
      ? this.wave.status.vms
          .filter((vm) => signed.covers?.some((c) => c.workflowId === vm.workflowId))
          .map((vm) => vm.name)
      : decision.vms;
    const approval: WaveApproval = {
      by: decision.by,
      reason: decision.reason,
      at: workflowNow(),
      via,
      vms: vms ?? 'all',
      ...(signed ? { signed: true as const, signature: signed } : {}),
      ...(decision.notBefore !== undefined ? { notBefore: decision.notBefore } : {}),
    };
    this.wave.status.approvals.push(approval);
    for (const vm of this.wave.vmsIn('running').filter((v) => approvalCovers(approval, v.name)))
      this.forward(vm, approval);
  }

  /** A VM workflow just started: it hears the approval that covers it, if one came already. */
  forwardEarlier(vm: WaveVm): void {
    const approval = approvedBy(this.wave.status.approvals, vm.name);
    if (approval) this.forward(vm, approval);
  }

  /** Unsigned: the wave vouches for the approval. Signed: passed on as signed, and the VM checks it again. */
  private forward(vm: WaveVm, approval: WaveApproval): void {
    const { by, reason, signature, notBefore } = approval;
    const when = notBefore !== undefined ? { notBefore } : {};
    const decision = signature
      ? { by, reason, signed: signature, ...when }
      : { by, reason: `${reason} (wave approval)`, ...when };
    const signal = getExternalWorkflowHandle(vm.workflowId).signal(approveCutoverSignal, decision);
    this.signals.send(signal);
  }

  private takeSignal(decision: CutoverApproval): void {
    if (!this.refused(decision, 'signal')) this.approve(decision, 'signal');
  }

  /** Why the approval cannot be taken, recorded in `status.ignored` and the UI's details (decision-handlers.ts says why not a validator). */
  private refused(decision: CutoverApproval, via: 'update' | 'signal'): string | undefined {
    const problem = this.problem(decision);
    if (!problem) return undefined;
    this.wave.status.ignored.push({ message: `approve by ${String(decision?.by)} (${via})`, reason: problem });
    this.wave.showDetails();
    return problem;
  }

  private problem(decision: CutoverApproval): string | undefined {
    const { settings, status } = this.wave;
    if (!settings) return 'the wave is still loading its settings; try again in a moment';
    const problem = decisionProblem(decision, settings.approvers) ?? notBeforeProblem(decision);
    if (problem) return problem;
    const unknown = (decision.vms ?? []).filter((name) => !status.vms.some((vm) => vm.name === name));
    if (status.stage !== 'discover' && unknown.length > 0) return `not in this wave: ${unknown.join(', ')}`;
    const scope = {
      kind: 'wave' as const,
      workflowId: workflowInfo().workflowId,
      vms: status.vms.map((vm) => vm.workflowId),
    };
    return signedApprovalProblem('approve-cutover', decision, settings.approvals, scope);
  }
}
