import {
  WorkflowFailedError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import { anyStatusQuery, waveSummaryQuery } from '../../src/domain/messages';
import type { WaveStatus } from '../../src/domain/migration';
import { unpackWaveStatus, type PackedWaveStatus } from '../../src/domain/migration/wave-record';
import {
  readProgress,
  summarizeWave,
  type RunningActivity,
  type StatusView,
  type WaveSummaryRequest,
} from '../../src/domain/status';
import { rootCauseMessage } from '../workflow-result';
import { visibilitySummary } from './visibility-summary';
import { workerPolls } from '../worker-presence';

const WAVE_TYPE = 'migrationWave';
/**
 * How long `status` waits for a running wave's own summary before it answers from visibility. The
 * query waits behind every workflow task the wave's worker has queued (1,000 VM workflows moving: 1–7 s
 * on a loaded machine); visibility answers in a list call.
 */
export const WAVE_QUERY_BUDGET_MS = 700;

export interface LoadOptions {
  /** The page of a wave's rows. */
  page?: WaveSummaryRequest;
  /** A wave's full status too (every VM: large for a big wave). */
  full?: boolean;
  /** A running wave: how long to wait for its own summary before answering from visibility (ms). */
  queryBudgetMs?: number;
  /** The workflow's description when the caller read it just now (resolving the target): not asked for again. */
  description?: WorkflowExecutionDescription;
}

/**
 * A workflow's status as `ferry status` shows it. A wave answers with its summary (one page of rows)
 * and the running activities of the VMs on that page, each read from the VM's own workflow.
 */
export async function loadStatus(
  client: Client,
  handle: WorkflowHandle,
  options: LoadOptions = {},
): Promise<StatusView> {
  const description = options.description ?? (await handle.describe());
  const state = description.status.name;
  const base = {
    workflowId: handle.workflowId,
    type: description.type,
    state,
    progress: runningActivities(client, description),
  };
  // A query waits for a worker as long as none comes: ask only when one polls the workflow's queue.
  const needsWorker = state === 'RUNNING' || state === 'FAILED';
  if (needsWorker && !(await workerPolls(client, description.taskQueue)))
    return { ...base, noWorker: description.taskQueue };
  if (description.type === WAVE_TYPE) return loadWave(client, handle, description, base, options);
  return { ...base, ...(await ownStatus(handle, state)) };
}

async function ownStatus(handle: WorkflowHandle, state: string): Promise<Pick<StatusView, 'status' | 'result'>> {
  if (state === 'RUNNING') return { status: await queryStatus(handle) };
  if (state === 'COMPLETED') {
    const result = await handle.result();
    return {
      result,
      status: (result as { status?: Record<string, unknown> })?.status ?? (result as Record<string, unknown>),
    };
  }
  if (state !== 'FAILED') return {};
  // A closed workflow still answers queries (a worker replays it): the steps up to the failure.
  const status = await queryStatus(handle);
  if (typeof status?.error === 'string') return { status };
  const failure = await handle.result().then(
    () => undefined,
    (err: unknown) => (err instanceof WorkflowFailedError ? rootCauseMessage(err) : String(err)),
  );
  return { status: { ...status, error: failure } };
}

/** The answer, or undefined once `ms` passed without one (the query itself is left to end on its own). */
async function withinBudget<T>(answer: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  answer.catch(() => undefined);
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function loadWave(
  client: Client,
  handle: WorkflowHandle,
  description: WorkflowExecutionDescription,
  base: StatusView,
  options: LoadOptions,
): Promise<StatusView> {
  let wave;
  let status: Record<string, unknown> | undefined;
  if (base.state === 'COMPLETED') {
    // A finished wave's result holds a row per VM: the summary is made here, not by a worker.
    const result = (await handle.result()) as { status: PackedWaveStatus | WaveStatus };
    const finished = unpackWaveStatus(result.status);
    wave = summarizeWave(finished, { now: Date.now() }, options.page);
    if (options.full) status = finished as unknown as Record<string, unknown>;
  } else if (base.state === 'RUNNING') {
    wave = await withinBudget(
      handle.query(waveSummaryQuery, options.page ?? {}),
      options.queryBudgetMs ?? WAVE_QUERY_BUDGET_MS,
    ).catch(() => undefined);
    wave ??= await visibilitySummary(client, description, options.page).catch(() => undefined);
    if (options.full) status = await queryStatus(handle);
  } else if (base.state === 'FAILED') {
    wave = await handle.query(waveSummaryQuery, options.page ?? {}).catch(() => undefined);
    if (options.full) status = await queryStatus(handle);
  }
  if (!wave) return { ...base, ...(await ownStatus(handle, base.state)) };
  // Only VMs at work have activities to show; one waiting (at the gate, for a window or a decision) has none.
  const running = wave.rows.filter((row) => row.state === 'running' && !row.stage?.startsWith('awaiting-'));
  const vmActivities = Object.fromEntries(
    await Promise.all(
      running.map(async (row) => {
        const described = await client.workflow
          .getHandle(row.workflowId)
          .describe()
          .catch(() => undefined);
        return [row.workflowId, described ? runningActivities(client, described) : []] as const;
      }),
    ),
  );
  return { ...base, wave, vmActivities, ...(status ? { status } : {}) };
}

/** The workflow's own status; undefined when no worker answers (the caller shows what describe knows). */
async function queryStatus(handle: WorkflowHandle): Promise<Record<string, unknown> | undefined> {
  const status = await handle.query(anyStatusQuery).catch(() => undefined);
  return status as Record<string, unknown> | undefined;
}

/** The workflow's running activities with their last heartbeat: typed progress where it is one. */
export function runningActivities(client: Client, description: WorkflowExecutionDescription): RunningActivity[] {
  return (description.raw.pendingActivities ?? []).map((a) => {
    const payload = a.heartbeatDetails?.payloads?.[0];
    const details: unknown = payload
      ? client.options.loadedDataConverter.payloadConverter.fromPayload(payload)
      : undefined;
    const progress = readProgress(details);
    return {
      activity: a.activityType?.name ?? '?',
      attempt: a.attempt ?? 1,
      ...(progress ? { progress } : details !== undefined ? { details } : {}),
    };
  });
}
