import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { FerryStage, VmName, WaveId } from '../../src/domain/search-attributes';
import { summarizeWave, waveFromVisibility, type VisibleVmWorkflow, type WaveSummary, type WaveSummaryRequest } from '../../src/domain/status';
import { quote } from '../targets';

/** A wave's VM workflows listed at most (far beyond any wave ferry runs). */
const MAX_LISTED = 20_000;

/**
 * A wave's summary from visibility alone (its VM workflows' `FerryStage` and execution status), for when
 * the wave's own query does not answer in time: one list call instead of a query that waits behind the
 * worker's other workflow tasks. Rows and counts cover the VMs whose workflow started.
 */
export async function visibilitySummary(client: Client, wave: WorkflowExecutionDescription, page: WaveSummaryRequest = {}): Promise<WaveSummary | undefined> {
  const waveId = wave.typedSearchAttributes.get(WaveId);
  if (waveId === undefined) return undefined;
  const workflows: VisibleVmWorkflow[] = [];
  const query = `WaveId = ${quote(waveId)} AND FerryKind = 'migrate'`;
  for await (const wf of client.workflow.list({ query, pageSize: 1000 })) {
    workflows.push({
      workflowId: wf.workflowId,
      vmName: wf.typedSearchAttributes.get(VmName),
      stage: wf.typedSearchAttributes.get(FerryStage),
      running: wf.status.name === 'RUNNING',
      startMs: wf.startTime.getTime(),
      closeMs: wf.closeTime?.getTime(),
    });
    if (workflows.length >= MAX_LISTED) break;
  }
  return { ...summarizeWave(waveFromVisibility(waveId, workflows), { now: Date.now() }, page), source: 'visibility' };
}
