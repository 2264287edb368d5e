import { getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';
import { addCopies, shortReason, stageReportApplies, type VmFinished, type WaveVm } from '../../src/domain/migration';
import {
  importThroughputSignal,
  vmFinishedSignal,
  vmStageSignal,
  waveStatusQuery,
  waveSummaryQuery,
} from '../../src/domain/messages';
import { workflowNow } from '../clock';
import type { SignalsInFlight } from './signals-in-flight';
import type { WaveState } from './state';

/**
 * What the wave answers and what its VM workflows tell it: the status (query), each VM's stage changes
 * and its end (signals). Each finished import sharpens the downtime estimate of the VMs still waiting
 * for approval, so the wave passes the measured throughput on to them.
 */
export function handleReports(wave: WaveState, signals: SignalsInFlight): void {
  setHandler(waveStatusQuery, () => wave.report());
  setHandler(waveSummaryQuery, (request) => wave.summary(request));
  setHandler(vmStageSignal, ({ moid, stage, seq, at }) => {
    const vm = wave.vm(moid);
    if (!vm || !stageReportApplies(vm, seq)) return;
    vm.stage = stage;
    vm.stageAt = at;
    if (seq !== undefined) vm.stageSeq = seq;
  });
  setHandler(vmFinishedSignal, (finished) => {
    const vm = wave.vm(finished.moid);
    if (!vm || vm.state === 'finished') return;
    recordFinished(vm, finished);
    wave.showDetails();
    // The VM's actions and timings stay in its own workflow: the wave adds up only what its rates need.
    wave.status.importTotals = addCopies(wave.status.importTotals, finished.imports);
    const relocate = finished.relocateSeconds;
    if (relocate !== undefined && vm.bytes)
      wave.status.relocateTotals = addCopies(wave.status.relocateTotals, [{ bytes: vm.bytes, seconds: relocate }]);
    forwardThroughput(wave, signals);
  });
}

function recordFinished(vm: WaveVm, finished: VmFinished): void {
  vm.state = 'finished';
  vm.outcome = finished.outcome;
  if (finished.error !== undefined) vm.error = shortReason(finished.error);
  if (finished.refusal !== undefined) vm.refusal = shortReason(finished.refusal);
  vm.finishedAt = workflowNow();
  if (finished.vmid !== undefined) vm.vmid = finished.vmid;
  if (finished.verification) vm.verification = finished.verification;
  if (finished.cancellation) vm.cancellation = finished.cancellation;
  vm.stage = finished.stage ?? vm.stage;
  delete vm.stageSeq;
}

function forwardThroughput(wave: WaveState, signals: SignalsInFlight): void {
  const throughput = wave.importThroughput();
  if (!throughput.measured) return;
  wave.status.importThroughputBytesPerSecond = throughput.bytesPerSecond;
  for (const vm of wave.vmsIn('running').filter((v) => v.stage === 'awaiting-approval')) {
    signals.send(getExternalWorkflowHandle(vm.workflowId).signal(importThroughputSignal, throughput));
  }
}
