import type { Client, WorkflowExecutionDescription, WorkflowExecutionInfo } from '@temporalio/client';
import { FerryStage, VmName, WaveId } from '../../src/domain/search-attributes';
import {
  ATTENTION_STAGES,
  summarizeWave,
  summaryFromVisibleCounts,
  waveFromVisibility,
  VISIBLE_STAGES,
  WAVE_ROWS_DEFAULT,
  WAVE_ROWS_MAX,
  type VisibleCounts,
  type VisibleVmWorkflow,
  type WaveSummary,
  type WaveSummaryRequest,
} from '../../src/domain/status';
import { quote } from '../targets';

/** Closed VM workflows in these stages need no person (migrated, refused, cancelled). */
const SETTLED_STAGES = ['done', 'refused', 'cancelled'];

const inList = (values: readonly string[]) => values.map(quote).join(', ');

/**
 * A wave's summary from visibility alone (its VM workflows' `FerryStage` and execution status), for when
 * the wave's own query does not answer in time: a count per stage (grouped by execution status) and one
 * page of rows, those needing a person first. Its cost does not grow with the wave (a 1,000-VM wave:
 * ~20 counts and at most two short lists, in parallel). Counts and rows cover the VMs whose workflow
 * started; a VM rerun under the same id counts once per run.
 */
export async function visibilitySummary(
  client: Client,
  wave: WorkflowExecutionDescription,
  page: WaveSummaryRequest = {},
): Promise<WaveSummary | undefined> {
  const waveId = wave.typedSearchAttributes.get(WaveId);
  if (waveId === undefined) return undefined;
  const base = `WaveId = ${quote(waveId)} AND FerryKind = 'migrate'`;
  const waits = inList(ATTENTION_STAGES.running);
  const settled = inList(SETTLED_STAGES);
  const attention = `${base} AND ((ExecutionStatus = 'Running' AND FerryStage IN (${waits})) OR (ExecutionStatus != 'Running' AND FerryStage NOT IN (${settled})))`;
  const rest = `${base} AND ((ExecutionStatus = 'Running' AND FerryStage NOT IN (${waits})) OR (ExecutionStatus != 'Running' AND FerryStage IN (${settled})))`;
  const wanted = (page.offset ?? 0) + Math.min(page.limit ?? WAVE_ROWS_DEFAULT, WAVE_ROWS_MAX);
  const [counts, needPerson] = await Promise.all([
    visibleCounts(client, base, attention),
    firstRows(client, attention, wanted),
  ]);
  const others =
    page.filter === 'attention' || needPerson.length >= wanted
      ? []
      : await firstRows(client, rest, wanted - needPerson.length);
  const rows = summarizeWave(waveFromVisibility(waveId, [...needPerson, ...others]), { now: Date.now() }, page);
  return summaryFromVisibleCounts(rows, counts, page);
}

async function visibleCounts(client: Client, base: string, attention: string): Promise<VisibleCounts> {
  const split = async (query: string) => {
    const { count, groups } = await client.workflow.count(`${query} GROUP BY ExecutionStatus`);
    const running = groups.filter((g) => String(g.groupValues[0]) === 'Running').reduce((sum, g) => sum + g.count, 0);
    return { running, closed: count - running };
  };
  const [total, needPerson, ...perStage] = await Promise.all([
    split(base),
    client.workflow.count(attention),
    ...VISIBLE_STAGES.map((stage) => split(`${base} AND FerryStage = ${quote(stage)}`)),
  ]);
  return {
    ...total,
    attention: needPerson.count,
    stages: Object.fromEntries(VISIBLE_STAGES.map((stage, i) => [stage, perStage[i]!])),
  };
}

/** The first `n` VM workflows the query matches: one page, never a listing of the wave. */
async function firstRows(client: Client, query: string, n: number): Promise<VisibleVmWorkflow[]> {
  const rows: VisibleVmWorkflow[] = [];
  if (n <= 0) return rows;
  for await (const wf of client.workflow.list({ query, pageSize: n })) {
    rows.push(visibleRow(wf));
    if (rows.length >= n) break;
  }
  return rows;
}

function visibleRow(wf: WorkflowExecutionInfo): VisibleVmWorkflow {
  return {
    workflowId: wf.workflowId,
    vmName: wf.typedSearchAttributes.get(VmName),
    stage: wf.typedSearchAttributes.get(FerryStage),
    running: wf.status.name === 'RUNNING',
    startMs: wf.startTime.getTime(),
    closeMs: wf.closeTime?.getTime(),
  };
}
