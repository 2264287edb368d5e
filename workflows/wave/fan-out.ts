import { continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { MigrationSettings } from '../../src/domain/migration';
import type { migrationWave, MigrationWaveInput } from '../migration-wave';
import type { WaveApprovals } from './approvals';
import type { WaveCancel } from './cancel';
import type { SignalsInFlight } from './signals-in-flight';
import { waitForReports } from './silent-children';
import { startVmWorkflow } from './start-vm-workflow';
import type { WaveState } from './state';

const DEFAULT_CONCURRENCY = 50;
/**
 * Every free slot's VM workflow is started in one workflow task (not a round trip each), at most this
 * many: 1,000 starts in one task (each carrying the VM's settings) took longer than the 10 s workflow
 * task timeout on a loaded machine and were retried whole; 100 complete in about a second.
 */
const START_BATCH = 100;

/**
 * The VMs, a bounded number of VM workflows at a time (those waiting for approval count), until every
 * one has finished. The global limits (vMotion, imports) are held by the semaphores, not by this.
 */
export async function fanOut(
  wave: WaveState,
  settings: MigrationSettings,
  handlers: { approvals: WaveApprovals; signals: SignalsInFlight; cancel?: WaveCancel },
  input: MigrationWaveInput,
): Promise<void> {
  wave.setStage('migrating');
  const limit = input.maxConcurrent ?? DEFAULT_CONCURRENCY;
  let startedThisRun = 0;
  for (;;) {
    handlers.cancel?.stopPending();
    const running = wave.vmsIn('running').length;
    const next = wave.status.vms.find((v) => v.state === 'pending');
    if (next && running < limit) {
      const batch = wave.status.vms
        .filter((v) => v.state === 'pending')
        .slice(0, Math.min(limit - running, START_BATCH));
      await Promise.all(batch.map((vm) => startVmWorkflow(vm, wave, settings)));
      for (const vm of batch) handlers.approvals.forwardEarlier(vm);
      startedThisRun += batch.length;
      continue;
    }
    if (!next && running === 0) return;
    if (timeForNewRun(input, startedThisRun)) await continueWithNewRun(wave, settings, handlers.signals, input);
    await waitForReports(wave, input.childCheckIntervalMs);
  }
}

/**
 * A long wave starts afresh (continue-as-new) before its history grows too long; the VMs it started
 * keep running and report to the new run.
 */
function timeForNewRun(input: MigrationWaveInput, startedThisRun: number): boolean {
  return (
    workflowInfo().continueAsNewSuggested ||
    (input.continueAsNewAfter !== undefined && startedThisRun >= input.continueAsNewAfter)
  );
}

async function continueWithNewRun(
  wave: WaveState,
  settings: MigrationSettings,
  signals: SignalsInFlight,
  input: MigrationWaveInput,
): Promise<never> {
  await signals.settled();
  return continueAsNew<typeof migrationWave>({ ...input, autoApprove: undefined, carried: wave.carryOver(settings) });
}
