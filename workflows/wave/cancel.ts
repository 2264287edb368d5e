import { getExternalWorkflowHandle } from '@temporalio/workflow';
import { decisionProblem, type CancelRequest, type DecisionRecord } from '../../src/domain/migration';
import { cancelMigrationSignal, cancelWaveSignal, cancelWaveUpdate } from '../../src/domain/messages';
import { workflowNow } from '../clock';
import { handleDecision } from '../decision-handlers';
import type { SignalsInFlight } from './signals-in-flight';
import type { WaveState } from './state';

/**
 * `ferry cancel <wave>`: the VMs not started yet never start (they end `cancelled`), and each running
 * VM's workflow is cancelled by signal, which takes it as `ferry cancel <vm>` would (stops before the
 * shutdown, waits for retry or rollback inside the cutover). The wave ends once they all have.
 */
export class WaveCancel {
  constructor(
    private readonly wave: WaveState,
    private readonly signals: SignalsInFlight,
  ) {
    handleDecision<CancelRequest, ReturnType<WaveState['report']>>({
      kind: 'cancel',
      update: cancelWaveUpdate,
      signal: cancelWaveSignal,
      problem: (request) => this.problem(request),
      accept: (record, request) => this.accept(record, request),
      ignored: wave.status.ignored,
      reply: () => wave.report(),
    });
  }

  /** VMs still pending when the wave was cancelled (discovered afterwards, say) end without starting. */
  stopPending(): void {
    if (!this.wave.status.cancellation) return;
    for (const vm of this.wave.vmsIn('pending')) {
      vm.state = 'finished';
      vm.outcome = 'cancelled';
      vm.stage = 'cancelled';
      vm.finishedAt = workflowNow();
    }
  }

  private accept(record: DecisionRecord, request: CancelRequest): void {
    const removeShells = request.removeShells === true;
    this.wave.status.cancellation = { ...record, removeShells };
    this.stopPending();
    const forwarded: CancelRequest = { by: record.by, reason: `${record.reason} (wave cancel)`, removeShells };
    for (const vm of this.wave.vmsIn('running')) {
      this.signals.send(getExternalWorkflowHandle(vm.workflowId).signal(cancelMigrationSignal, forwarded));
    }
  }

  private problem(request: CancelRequest | undefined): string | undefined {
    const { settings, status } = this.wave;
    if (!settings) return 'the wave is still loading its settings; try again in a moment';
    const invalid = decisionProblem(request, settings.approvers);
    if (invalid) return invalid;
    if (request!.removeShells !== undefined && typeof request!.removeShells !== 'boolean')
      return 'removeShells: expected true or false';
    if (status.cancellation) return `already cancelled by ${status.cancellation.by}`;
    if (status.stage === 'done') return 'nothing to cancel: the wave has ended';
    return undefined;
  }
}
