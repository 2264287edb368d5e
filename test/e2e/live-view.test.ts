import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { migrationWave } from '../../workflows/migration-wave';
import { labWorkers, useMigrationLab } from '../helpers/migration-lab';
import { ROOT } from '../helpers/processes';
import { readWaveOutcome } from '../../lab/wave-result';

const tmux = (socket: string, ...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The live view as a person sees it: `ferry status <wave> --watch` in a tmux pane while a lab wave
 * imports slowly (the simulator logs the import's progress as PVE does); the screen is read with
 * capture-pane. mig-legacy01 rides along: refused before its approval gate, its row says why.
 */
describe('ferry status --watch in a terminal', () => {
  jest.setTimeout(300_000);
  // Imports take 16 s and log their progress each second; heartbeats go out at most every 0.8 × 5 s.
  const suite = useMigrationLab({ sim: { importTaskMs: 16_000 }, migration: { heartbeatTimeout: '5s' } });

  it('redraws a moving progress bar with rate and ETA and a header with the wave ETA; the UI finds a summary on every start', async () => {
    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    const socket = `ferry-${workers.taskQueue}`;
    const configFile = path.join(suite.lab.stateDir, 'cli.yaml');
    writeFileSync(configFile, stringify({ ...suite.lab.document, worker: { taskQueue: workers.taskQueue } }));
    const script = path.join(suite.lab.stateDir, 'watch.sh');
    const env = Object.entries({ ...suite.lab.env, FERRY_CONFIG: configFile }).map(
      ([k, v]) => `export ${k}=${shellQuote(v)}`,
    );
    const waveId = workers.taskQueue;
    writeFileSync(
      script,
      [
        ...env,
        `cd ${shellQuote(ROOT)}`,
        `exec ${shellQuote(process.execPath)} bin/ferry.js status ${waveId}-wave --watch --interval 1`,
      ].join('\n'),
    );
    const frames: string[] = [];
    let finishedVms: string[] = [];
    await workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${waveId}-wave`,
        args: [
          {
            waveId,
            selection: { names: ['scale-0001', 'scale-0002', 'mig-legacy01'] },
            autoApprove: { by: 'alice', reason: 'live view test' },
          },
        ],
      });
      tmux(socket, 'new-session', '-d', '-x', '200', '-y', '40', `bash ${shellQuote(script)}; sleep 600`);
      try {
        const done = readWaveOutcome(suite.temporal.client, wave);
        let finished = false;
        void done.finally(() => (finished = true));
        while (!finished) {
          frames.push(tmux(socket, 'capture-pane', '-p', '-t', '0'));
          await new Promise((r) => setTimeout(r, 500));
        }
        finishedVms = (await done).status.vms.map((vm) => vm.workflowId);
        await new Promise((r) => setTimeout(r, 2500));
        frames.push(tmux(socket, 'capture-pane', '-p', '-t', '0'));
      } finally {
        tmux(socket, 'kill-server');
      }
    });
    const percents = frames.flatMap((f) => [...f.matchAll(/\[[#-]{20}\]\s+(\d+)%/g)].map((m) => Number(m[1])));
    const moving = new Set(percents.filter((p) => p > 0 && p < 100));
    const withBar = frames.find((f) => /\[[#-]{20}\]\s+\d+% .*MiB\/s ETA \d/.test(f));
    if (moving.size < 2 || !withBar)
      throw new Error(
        `no moving bar seen in ${frames.length} frames; last:\n${frames.at(-1)}\npercents: ${percents.join(',')}`,
      );
    console.log(`a frame of the live view:\n${withBar}`);
    expect(moving.size).toBeGreaterThanOrEqual(2);
    expect(withBar).toMatch(/scale-0001|scale-0002/);
    expect(frames.some((f) => /wave .* 3 VMs: .* running/.test(f) && /ETA: \d/.test(f))).toBe(true);
    // Redrawn in place: a frame holds one header, not a scroll of old ones.
    for (const f of frames) expect(f.match(/^wave /gm)?.length ?? 0).toBeLessThanOrEqual(1);
    expect(frames.at(-1)).toMatch(/ETA: done/);
    // The refused VM's row says why, once: not "refused refused" and nothing after it.
    const refusedRow =
      /^ {2}mig-legacy01 +refused +Hard disk 1 is on LocalDS_0 \(\[LocalDS_0\] mig-legacy01\/mig-legacy01\.vmdk\), not on the migration datastore nfs-migration/m;
    expect(frames.at(-1)).toMatch(refusedRow);
    // It was refused long before the imports ended: the reason was on screen while the others still copied.
    expect(frames.some((f) => refusedRow.test(f) && /\[[#-]{20}\]\s+\d+%/.test(f))).toBe(true);
    expect(frames.join('\n')).not.toMatch(/mig-legacy01 +refused +refused\s*$/m);

    // Readable in the Temporal UI: every child start and every activity the wave and its VMs scheduled carries a summary.
    expect(finishedVms).toHaveLength(3);
    const missing = [];
    let checked = 0;
    for (const workflowId of [`${waveId}-wave`, `${waveId}-wave/sdn`, ...finishedVms]) {
      const found = await eventsWithoutSummary(suite.temporal.client, workflowId);
      checked += found.checked;
      missing.push(...found.missing);
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(20);
    for (const workflowId of finishedVms) {
      const description = await suite.temporal.client.workflow.getHandle(workflowId).describe();
      expect(await description.staticSummary()).toMatch(/^(scale-000[12]|mig-legacy01) → VM \d+ on \S+$/);
      expect(await description.staticDetails()).toContain(`wave ${waveId}`);
    }
  });
});

const { EventType } = temporal.api.enums.v1;
const NEEDS_SUMMARY = new Set([
  EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
  EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
]);

/** The activity and child-workflow starts in a workflow's history that carry no summary for the UI. */
async function eventsWithoutSummary(
  client: Client,
  workflowId: string,
): Promise<{ checked: number; missing: string[] }> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const missing: string[] = [];
  let checked = 0;
  for (const event of history.events ?? []) {
    if (!NEEDS_SUMMARY.has(event.eventType!)) continue;
    checked += 1;
    if (event.userMetadata?.summary?.data?.length) continue;
    const what =
      event.activityTaskScheduledEventAttributes?.activityType?.name ??
      event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name;
    missing.push(`${workflowId}: ${EventType[event.eventType!]} ${what}`);
  }
  return { checked, missing };
}
