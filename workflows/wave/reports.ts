import { getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';
import { measuredThroughput, stageReportApplies, type VmFinished, type WaveVm } from '../../src/domain/migration';
import { importThroughputSignal, vmFinishedSignal, vmStageSignal, waveStatusQuery } from '../../src/domain/messages';
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
  setHandler(vmStageSignal, ({ moid, stage, seq }) => {
    const vm = wave.vm(moid);
    if (!vm || !stageReportApplies(vm, seq)) return;
    vm.stage = stage;
    if (seq !== undefined) vm.stageSeq = seq;
  });
  setHandler(vmFinishedSignal, (finished) => {
    const vm = wave.vm(finished.moid);
    if (!vm || vm.state === 'finished') return;
    recordFinished(vm, finished);
    wave.actions.push(...finished.actions);
    wave.imports.push(...finished.imports);
    forwardThroughput(wave, signals);
  });
}

function recordFinished(vm: WaveVm, finished: VmFinished): void {
  vm.state = 'finished';
  vm.outcome = finished.outcome;
  vm.error = finished.error;
  vm.finishedAt = workflowNow();
  vm.timings = finished.timings;
  if (finished.verification) vm.verification = finished.verification;
  if (finished.cancellation) vm.cancellation = finished.cancellation;
  vm.stage = finished.timings.at(-1)?.stage ?? vm.stage;
}

function forwardThroughput(wave: WaveState, signals: SignalsInFlight): void {
  const throughput = measuredThroughput(wave.imports);
  if (!throughput.measured) return;
  wave.status.importThroughputBytesPerSecond = throughput.bytesPerSecond;
  for (const vm of wave.vmsIn('running').filter((v) => v.stage === 'awaiting-approval')) {
    signals.send(getExternalWorkflowHandle(vm.workflowId).signal(importThroughputSignal, throughput));
  }
}
