/**
 * One workflow run's history, as Temporal's proto JSON (what `historyToJSON` writes and what
 * test/histories/*.json hold), read into the few facts a report needs: when each stage began, each
 * activity ran, each timer waited, each signal or update came, each child started, and how it ended.
 * Pure: no client, no clock.
 */
export interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

export interface HistoryEvent {
  eventId: string;
  eventTime: string;
  eventType: string;
  [attributes: string]: unknown;
}

export interface JsonHistory {
  events?: HistoryEvent[];
}

export type RunState =
  'running' | 'completed' | 'failed' | 'canceled' | 'terminated' | 'timed-out' | 'continued-as-new';

export interface ActivityRun {
  name: string;
  scheduledAt: number;
  startedAt?: number;
  closedAt?: number;
  outcome: 'scheduled' | 'running' | 'completed' | 'failed' | 'timed-out' | 'canceled';
  /** The attempt that started last (retries happen inside one scheduled activity). */
  attempt: number;
  /** The failure of the attempt before, when it was retried. */
  lastFailure?: string;
  failure?: string;
  input?: unknown;
  result?: unknown;
}

export interface TimerRun {
  startedAt: number;
  firedAt?: number;
  /** What the workflow asked for, in ms. */
  durationMs: number;
  /** What the timer is for, as the workflow labelled it (`poll: …`, a lease renewal, a window). */
  summary?: string;
}

export interface MessageIn {
  kind: 'signal' | 'update';
  name: string;
  at: number;
  args: unknown[];
}

export interface StageMark {
  stage: string;
  at: number;
}

export interface ChildStart {
  workflowId: string;
  type: string;
  at: number;
}

export interface WorkflowTimeline {
  workflowId: string;
  type: string;
  startedAt: number;
  closedAt?: number;
  state: RunState;
  /** The run this one continued (continue-as-new), to read before it. */
  continuedFrom?: string;
  input?: unknown;
  result?: unknown;
  failure?: string;
  /** From the FerryStage search attribute, which every ferry workflow sets as it moves on. */
  stages: StageMark[];
  activities: ActivityRun[];
  timers: TimerRun[];
  messages: MessageIn[];
  children: ChildStart[];
  /** The last value of each search attribute it set (VmName, VmId, WaveId, …). */
  searchAttributes: Record<string, unknown>;
}

const JSON_ENCODINGS = new Set(['json/plain', 'json/protobuf']);

function fromBase64(text: string): string {
  return Buffer.from(text, 'base64').toString('utf8');
}

/** A payload's value; undefined for `binary/null` and for encodings a report cannot read (encrypted, protobuf binary). */
export function decodePayload(payload: JsonPayload | undefined): unknown {
  if (!payload?.data) return undefined;
  const encoding = payload.metadata?.encoding ? fromBase64(payload.metadata.encoding) : 'json/plain';
  if (!JSON_ENCODINGS.has(encoding)) return undefined;
  try {
    return JSON.parse(fromBase64(payload.data)) as unknown;
  } catch {
    return undefined;
  }
}

function payloads(value: unknown): unknown[] {
  const list = (value as { payloads?: JsonPayload[] } | undefined)?.payloads ?? [];
  return list.map(decodePayload);
}

/** A failure's message with its causes, as a person reads it. */
export function failureMessage(failure: unknown): string | undefined {
  const parts: string[] = [];
  let current = failure as { message?: string; cause?: unknown } | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current.message && !parts.includes(current.message)) parts.push(current.message);
    current = current.cause as typeof current;
  }
  return parts.length ? parts.join(': ') : undefined;
}

function attributesOf(event: HistoryEvent): Record<string, unknown> {
  const key = Object.keys(event).find((k) => k.endsWith('EventAttributes'));
  return (key ? event[key] : {}) as Record<string, unknown>;
}

function durationMs(text: unknown): number {
  const match = typeof text === 'string' ? /^([\d.]+)s$/.exec(text) : null;
  return match ? Math.round(Number(match[1]) * 1000) : 0;
}

const CLOSING: Record<string, RunState> = {
  EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED: 'completed',
  EVENT_TYPE_WORKFLOW_EXECUTION_FAILED: 'failed',
  EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED: 'canceled',
  EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED: 'terminated',
  EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT: 'timed-out',
  EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW: 'continued-as-new',
};

const ACTIVITY_CLOSE: Record<string, ActivityRun['outcome']> = {
  EVENT_TYPE_ACTIVITY_TASK_COMPLETED: 'completed',
  EVENT_TYPE_ACTIVITY_TASK_FAILED: 'failed',
  EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT: 'timed-out',
  EVENT_TYPE_ACTIVITY_TASK_CANCELED: 'canceled',
};

class TimelineReader {
  readonly timeline: WorkflowTimeline;
  private readonly activities = new Map<string, ActivityRun>();
  private readonly timers = new Map<string, TimerRun>();

  constructor(workflowId: string) {
    this.timeline = {
      workflowId,
      type: '?',
      startedAt: 0,
      state: 'running',
      stages: [],
      activities: [],
      timers: [],
      messages: [],
      children: [],
      searchAttributes: {},
    };
  }

  read(event: HistoryEvent): void {
    const at = Date.parse(event.eventTime);
    const a = attributesOf(event);
    const t = this.timeline;
    switch (event.eventType) {
      case 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED':
        t.type = (a.workflowType as { name?: string } | undefined)?.name ?? '?';
        t.startedAt = at;
        t.input = payloads(a.input)[0];
        if (typeof a.continuedExecutionRunId === 'string' && a.continuedExecutionRunId)
          t.continuedFrom = a.continuedExecutionRunId;
        this.searchAttributes(a);
        return;
      case 'EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES': {
        const stage = this.searchAttributes(a).FerryStage;
        if (typeof stage === 'string') t.stages.push({ stage, at });
        return;
      }
      case 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED': {
        const run: ActivityRun = {
          name: (a.activityType as { name?: string } | undefined)?.name ?? '?',
          scheduledAt: at,
          outcome: 'scheduled',
          attempt: 1,
          input: payloads(a.input)[0],
        };
        this.activities.set(event.eventId, run);
        t.activities.push(run);
        return;
      }
      case 'EVENT_TYPE_ACTIVITY_TASK_STARTED':
        this.activityStarted(a, at);
        return;
      case 'EVENT_TYPE_TIMER_STARTED': {
        const summary = payloads({
          payloads: [(event as { userMetadata?: { summary?: JsonPayload } }).userMetadata?.summary].filter(Boolean),
        })[0];
        const timer = {
          startedAt: at,
          durationMs: durationMs(a.startToFireTimeout),
          ...(typeof summary === 'string' ? { summary } : {}),
        };
        this.timers.set(String(a.timerId), timer);
        t.timers.push(timer);
        return;
      }
      case 'EVENT_TYPE_TIMER_FIRED':
      case 'EVENT_TYPE_TIMER_CANCELED': {
        const timer = this.timers.get(String(a.timerId));
        if (timer) timer.firedAt = at;
        return;
      }
      case 'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED':
        t.messages.push({ kind: 'signal', name: String(a.signalName), at, args: payloads(a.input) });
        return;
      case 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED': {
        const input = (a.acceptedRequest as { input?: { name?: string; args?: unknown } } | undefined)?.input;
        t.messages.push({ kind: 'update', name: String(input?.name), at, args: payloads(input?.args) });
        return;
      }
      case 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED':
        t.children.push({
          workflowId: String(a.workflowId),
          type: (a.workflowType as { name?: string } | undefined)?.name ?? '?',
          at,
        });
        return;
    }
    if (event.eventType in ACTIVITY_CLOSE) this.activityClosed(event.eventType, a, at);
    else if (event.eventType in CLOSING) this.closed(event.eventType, a, at);
  }

  /** Records the search attributes an event sets, and returns them. */
  private searchAttributes(a: Record<string, unknown>): Record<string, unknown> {
    const fields =
      (a.searchAttributes as { indexedFields?: Record<string, JsonPayload> } | undefined)?.indexedFields ?? {};
    const values = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, decodePayload(v)]));
    Object.assign(this.timeline.searchAttributes, values);
    return values;
  }

  private activityStarted(a: Record<string, unknown>, at: number): void {
    const run = this.activities.get(String(a.scheduledEventId));
    if (!run) return;
    run.startedAt = at;
    run.outcome = 'running';
    run.attempt = Number(a.attempt ?? 1);
    const last = failureMessage(a.lastFailure);
    if (last) run.lastFailure = last;
  }

  private activityClosed(type: string, a: Record<string, unknown>, at: number): void {
    const run = this.activities.get(String(a.scheduledEventId));
    if (!run) return;
    run.closedAt = at;
    run.outcome = ACTIVITY_CLOSE[type]!;
    if (run.outcome === 'completed') run.result = payloads(a.result)[0];
    const failure = failureMessage(a.failure);
    if (failure) run.failure = failure;
  }

  private closed(type: string, a: Record<string, unknown>, at: number): void {
    const t = this.timeline;
    t.closedAt = at;
    t.state = CLOSING[type]!;
    if (t.state === 'completed') t.result = payloads(a.result)[0];
    const failure = failureMessage(a.failure);
    if (failure) t.failure = failure;
  }
}

/** The timeline of one run. */
export function readHistory(workflowId: string, history: JsonHistory): WorkflowTimeline {
  const reader = new TimelineReader(workflowId);
  for (const event of history.events ?? []) reader.read(event);
  return reader.timeline;
}

/**
 * The runs of one workflow id, oldest first (continue-as-new), as one timeline: it starts with the
 * first and ends as the last ends.
 */
export function joinRuns(runs: readonly WorkflowTimeline[]): WorkflowTimeline {
  if (runs.length === 0) throw new Error('joinRuns: no runs');
  const last = runs[runs.length - 1]!;
  const { continuedFrom: _continuedFrom, ...rest } = last;
  return {
    ...rest,
    ...(runs[0]!.continuedFrom ? { continuedFrom: runs[0]!.continuedFrom } : {}),
    startedAt: runs[0]!.startedAt,
    input: runs[0]!.input,
    stages: runs.flatMap((r) => r.stages),
    activities: runs.flatMap((r) => r.activities),
    timers: runs.flatMap((r) => r.timers),
    messages: runs.flatMap((r) => r.messages),
    children: runs.flatMap((r) => r.children),
    searchAttributes: Object.assign({}, ...runs.map((r) => r.searchAttributes)) as Record<string, unknown>,
  };
}
