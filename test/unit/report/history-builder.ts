import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readHistory, type WorkflowTimeline } from '../../../src/report';
import type { HistoryEvent } from '../../../src/report/history';

interface RecordedFile {
  workflowId: string;
  history: { events: HistoryEvent[] };
}

const readRecorded = (name: string) =>
  JSON.parse(readFileSync(path.join(__dirname, '../../histories', `${name}.json`), 'utf8')) as RecordedFile;

/** A recorded history under test/histories, read as the report reads it. */
export function recorded(name: string): WorkflowTimeline {
  const file = readRecorded(name);
  return readHistory(file.workflowId, file.history);
}

/**
 * The workflow ID a recording was made under. Each recording draws its own run prefix, so tests
 * take IDs from here and stay true when the histories are recorded again.
 */
export const recordedWorkflowId = (name: string): string => readRecorded(name).workflowId;

/** The recorded wave's ID (its workflow ID without `-wave`). */
export const recordedWaveId = (): string => recordedWorkflowId('migration-wave').replace(/-wave$/, '');

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** A payload as historyToJSON writes it. */
export function payload(value: unknown) {
  return { metadata: { encoding: b64('json/plain') }, data: b64(JSON.stringify(value)) };
}

export const T0 = Date.parse('2026-12-01T22:00:00Z');

/**
 * A small history in Temporal's proto JSON, event by event: `at` in seconds after T0, attributes as
 * the server writes them (the key follows from the type).
 */
export class HistoryBuilder {
  readonly events: HistoryEvent[] = [];

  add(type: string, at: number, attributes: Record<string, unknown> = {}): string {
    const id = String(this.events.length + 1);
    const key = `${type
      .replace(/^EVENT_TYPE_/, '')
      .toLowerCase()
      .replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}EventAttributes`;
    this.events.push({
      eventId: id,
      eventTime: new Date(T0 + at * 1000).toISOString(),
      eventType: type,
      [key]: attributes,
    });
    return id;
  }

  started(type: string, at = 0, input?: unknown): this {
    this.add('EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', at, {
      workflowType: { name: type },
      ...(input !== undefined ? { input: { payloads: [payload(input)] } } : {}),
    });
    return this;
  }

  attribute(at: number, fields: Record<string, unknown>): this {
    const indexedFields = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, payload(v)]));
    this.add('EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES', at, { searchAttributes: { indexedFields } });
    return this;
  }

  stage(at: number, stage: string): this {
    return this.attribute(at, { FerryStage: stage });
  }

  /** An activity scheduled at `at`, started and closed as given (no close: still running). */
  activity(
    name: string,
    at: number,
    run: {
      input?: unknown;
      startedAt?: number;
      attempt?: number;
      lastFailure?: string;
      completedAt?: number;
      result?: unknown;
      failedAt?: number;
      failure?: string;
    } = {},
  ): this {
    const scheduled = this.add('EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', at, {
      activityType: { name },
      ...(run.input !== undefined ? { input: { payloads: [payload(run.input)] } } : {}),
    });
    if (run.startedAt !== undefined) {
      this.add('EVENT_TYPE_ACTIVITY_TASK_STARTED', run.startedAt, {
        scheduledEventId: scheduled,
        attempt: run.attempt ?? 1,
        ...(run.lastFailure ? { lastFailure: { message: run.lastFailure } } : {}),
      });
    }
    if (run.completedAt !== undefined)
      this.add('EVENT_TYPE_ACTIVITY_TASK_COMPLETED', run.completedAt, {
        scheduledEventId: scheduled,
        ...(run.result !== undefined ? { result: { payloads: [payload(run.result)] } } : {}),
      });
    if (run.failedAt !== undefined)
      this.add('EVENT_TYPE_ACTIVITY_TASK_FAILED', run.failedAt, {
        scheduledEventId: scheduled,
        failure: { message: run.failure ?? 'failed' },
      });
    return this;
  }

  signalled(at: number, name: string, arg: unknown): this {
    this.add('EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED', at, { signalName: name, input: { payloads: [payload(arg)] } });
    return this;
  }

  updated(at: number, name: string, arg: unknown): this {
    this.add('EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED', at, {
      acceptedRequest: { input: { name, args: { payloads: [payload(arg)] } } },
    });
    return this;
  }

  completed(at: number, result: unknown): this {
    this.add('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', at, { result: { payloads: [payload(result)] } });
    return this;
  }

  failed(at: number, message: string, cause?: string): this {
    this.add('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED', at, {
      failure: { message, ...(cause ? { cause: { message: cause } } : {}) },
    });
    return this;
  }

  read(workflowId: string): WorkflowTimeline {
    return readHistory(workflowId, { events: this.events });
  }
}
