import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { ChaosSchedule, KillPoint, ScheduledKill } from './schedule';

export interface KillRecord {
  label: string;
  worker: number;
  /** Seconds after the workload started. */
  atSeconds: number;
  /** `point`: killed while the point's activity ran; `fallback`: the point was not seen in time, killed at whatever ran then. */
  how: 'point' | 'fallback';
  /** The activity (and workflow) running when it died. */
  seen?: string;
  restartedServer: boolean;
}

export interface RunningActivity {
  workflowType: string;
  workflowId: string;
  activity: string;
  heartbeat?: Record<string, unknown>;
}

/** Whether an activity that runs now is the kill point's moment. */
export function atPoint(point: KillPoint, a: RunningActivity, points: readonly KillPoint[]): boolean {
  if (a.workflowType !== point.workflowType || a.activity !== point.activity) return false;
  const saved = (field: string) => {
    const value = a.heartbeat?.[field];
    return typeof value === 'string' && value !== '';
  };
  if (point.heartbeat) return saved(point.heartbeat);
  // The "before the task id is saved" twin of a rejoin window: only while nothing is saved yet.
  const twin = points.find(
    (p) => p.heartbeat && p.activity === point.activity && p.workflowType === point.workflowType,
  );
  return !twin || !saved(twin.heartbeat!);
}

export interface KillerOptions {
  client: Client;
  schedule: ChaosSchedule;
  points: readonly KillPoint[];
  kill(k: ScheduledKill): Promise<void>;
  restartServer(): Promise<void>;
  /** BIND goes down once during provisioning: at its NetBox address or DNS steps when seen, else at whatever it runs. */
  bindOutage(): Promise<void>;
  log(line: string): void;
  /** Without a point seen for this long, the next kill comes anyway (a fallback). */
  maxGapMs: number;
  minGapMs: number;
}

export interface Killer {
  kills: KillRecord[];
  bindOutages: number;
  /** Stops watching; kills not made by then are reported as not made. */
  stop(): Promise<void>;
}

/** Provisioning at (or just before) its DNS records: when BIND goes down. */
const DNS_STAGE = new Set(['ensureNetboxInterface', 'assignNetboxIp', 'ensureDnsRecord']);

const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

async function runningActivities(client: Client, types: ReadonlySet<string>): Promise<RunningActivity[]> {
  const found: RunningActivity[] = [];
  const workflows: Array<{ workflowId: string; type: string }> = [];
  for await (const w of client.workflow.list({ query: `ExecutionStatus = 'Running'` }))
    if (types.has(w.type)) workflows.push({ workflowId: w.workflowId, type: w.type });
  await Promise.all(
    workflows.map(async ({ workflowId, type }) => {
      const description = await client.workflow
        .getHandle(workflowId)
        .describe()
        .catch(() => undefined);
      for (const a of description?.raw.pendingActivities ?? []) {
        if (a.state !== STARTED || !a.activityType?.name) continue;
        const data = a.heartbeatDetails?.payloads?.[0]?.data;
        let heartbeat: Record<string, unknown> | undefined;
        try {
          heartbeat = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as Record<string, unknown>) : undefined;
        } catch {
          heartbeat = undefined;
        }
        found.push({ workflowType: type, workflowId, activity: a.activityType.name, heartbeat });
      }
    }),
  );
  return found;
}

/**
 * Works through the schedule while the workload runs: each poll reads the activities running in every
 * workflow and kills the worker of the first scheduled kill whose point is running now (restarting the
 * Temporal server after it when scheduled); BIND is taken down once provisioning reaches DNS.
 */
export function startKiller(o: KillerOptions): Killer {
  const pending = [...o.schedule.kills];
  const kills: KillRecord[] = [];
  const started = Date.now();
  let lastKill = Date.now();
  let running = true;
  let bindOutages = 0;
  let outage: Promise<void> | undefined;
  const types = new Set(o.points.map((p) => p.workflowType));

  const fire = async (k: ScheduledKill, how: KillRecord['how'], seen?: RunningActivity) => {
    pending.splice(pending.indexOf(k), 1);
    const atSeconds = Math.round((Date.now() - started) / 100) / 10;
    const where = seen ? `${seen.activity} in ${seen.workflowId}` : undefined;
    o.log(
      `chaos: ${atSeconds}s kill -9 worker ${k.worker + 1} at "${k.point.label}"${how === 'fallback' ? ' (fallback: not seen in time)' : ''}${where ? ` [${where}]` : ''}`,
    );
    await o.kill(k);
    if (k.restartServer) {
      o.log(
        `chaos: ${Math.round((Date.now() - started) / 1000)}s kill -9 the Temporal dev server, and start it again on the same database`,
      );
      await o.restartServer();
    }
    kills.push({
      label: k.point.label,
      worker: k.worker,
      atSeconds,
      how,
      seen: where,
      restartedServer: k.restartServer,
    });
    lastKill = Date.now();
  };

  const poll = async (): Promise<void> => {
    await new Promise((r) => setTimeout(r, 400));
    const activities = await runningActivities(o.client, types).catch(() => [] as RunningActivity[]);
    if (
      !outage &&
      activities.some(
        (a) => DNS_STAGE.has(a.activity) || (a.workflowType === 'provisionVm' && Date.now() - started > 5_000),
      )
    ) {
      bindOutages++;
      outage = o.bindOutage().catch((err: unknown) => o.log(`chaos: BIND restart failed: ${String(err)}`));
    }
    if (pending.length === 0 || Date.now() - lastKill < o.minGapMs) return;
    for (const k of pending) {
      const seen = activities.find((a) => atPoint(k.point, a, o.points));
      if (seen) return fire(k, 'point', seen);
    }
    // Not seen in time (a quick step, or the stage is over): kill now, whatever runs (a workflow task, a timer, an activity).
    if (Date.now() - lastKill > o.maxGapMs) await fire(pending[0]!, 'fallback', activities[0]);
  };

  const loop = (async () => {
    while (running) await poll().catch((err: unknown) => o.log(`chaos: killer: ${String(err)}`));
  })();

  return {
    kills,
    get bindOutages() {
      return bindOutages;
    },
    async stop() {
      running = false;
      await loop;
      await outage;
    },
  };
}
