import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { approveCutoverSignal, migrationStatusQuery, waveStatusQuery } from '../../src/domain/messages';
import { LAB_APPROVERS } from '../../lab/migration-lab';
import { readWaveOutcome } from '../../lab/wave-result';
import { freePort } from '../../lab/free-port';
import { startDevServer, type DevServer } from '../../lab/temporal-dev-server';
import { toolPath } from '../../lab/tools';
import type { migrationWave } from '../../workflows/migration-wave';
import { BrowserPage } from '../helpers/browser-page';
import { keepScreenshot } from '../helpers/chromium';
import { labWorkers, startMigrationLab, type MigrationLab } from '../helpers/migration-lab';
import { run, spawnFerry } from '../helpers/processes';
import { connectTemporalAt, type TestTemporal } from '../helpers/temporal';
import { ferryScript, screenToPng, TmuxPane } from '../helpers/terminal';
import { until } from '../helpers/wait';

const NOT_AN_APPROVER = `mallory is not an approver (approvers: ${LAB_APPROVERS.join(', ')})`;
const IGNORED_UPDATE = `  ignored: approve by mallory (update): ${NOT_AN_APPROVER}`;
const IGNORED_SIGNAL = `  ignored: approve by mallory (signal): ${NOT_AN_APPROVER}`;
const APPROVED = '  approved by alice (unsigned): window 7';
const lines = (screen: string) => screen.split('\n').map((l) => l.trimEnd());

/**
 * What a person sees of approvals that were not taken, and of one taken unsigned: a VM at its cutover
 * gate gets `ferry approve --by mallory` (refused: mallory is no approver) and the same approval as a
 * raw `temporal workflow signal` (ignored), then alice's approval by raw signal (taken, unsigned).
 * `ferry status <vm> --watch` runs in a tmux pane throughout; the Temporal Web UI of a dev server of
 * this file's own (the run's shared one is headless) is opened in headless chromium at the gate.
 */
describe('approvals refused or ignored, and one taken unsigned, as a person sees them', () => {
  jest.setTimeout(180_000);
  let dir: string;
  let server: DevServer;
  let lab: MigrationLab;
  let temporal: TestTemporal;
  let stopWorkers: (() => void) | undefined;
  let workersDone: Promise<unknown>;
  let pane: TmuxPane | undefined;
  let waveId: string;
  let vmWorkflowId: string;
  const ferryEnv = () => ({ TEMPORAL_ADDRESS: server.address });
  /** `temporal workflow signal` by hand, as the operator did. */
  const rawSignal = (input: unknown) =>
    run(toolPath('temporal'), [
      'workflow',
      'signal',
      '--address',
      server.address,
      '--workflow-id',
      vmWorkflowId,
      '--name',
      approveCutoverSignal.name,
      '--input',
      JSON.stringify(input),
    ]);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ferry-decisions-view-'));
    const uiPort = await freePort();
    [server, lab] = await Promise.all([
      startDevServer({ uiPort, logFile: path.join(dir, 'temporal.log') }),
      startMigrationLab(),
    ]);
    temporal = await connectTemporalAt(server.address);
    const workers = await labWorkers(temporal.nativeConnection, lab.deps);
    waveId = workers.taskQueue;
    workersDone = workers.run(() => new Promise<void>((resolve) => (stopWorkers = resolve)));
    const wave = await temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
      taskQueue: workers.taskQueue,
      workflowId: `${waveId}-wave`,
      args: [{ waveId, selection: { names: ['scale-0001'] } }],
    });
    const waiting = await until('scale-0001 at its approval gate', async () => {
      const s = await wave.query(waveStatusQuery);
      return s.vms[0]?.stage === 'awaiting-approval' ? s : undefined;
    });
    vmWorkflowId = waiting.vms[0]!.workflowId;
  });

  afterAll(async () => {
    pane?.kill();
    stopWorkers?.();
    await workersDone;
    await temporal?.close();
    await Promise.all([server?.stop(), lab?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('ferry status and its --watch view show the refused update and the ignored signal, each with its reason', async () => {
    const script = ferryScript(path.join(dir, 'watch.sh'), ferryEnv(), [
      'status',
      vmWorkflowId,
      '--watch',
      '--interval',
      '1',
    ]);
    pane = TmuxPane.start(`ferry-${waveId}`, script);
    await pane.waitFor('the VM at its gate', (s) => /^ {2}stage: awaiting-approval/m.test(s));

    const refused = spawnFerry(['approve', vmWorkflowId, '--by', 'mallory', '--reason', 'let me'], ferryEnv());
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain(`approve refused by ${vmWorkflowId}: ${NOT_AN_APPROVER}`);
    expect(await rawSignal({ by: 'mallory', reason: 'let me anyway' })).toMatchObject({ code: 0 });

    const screen = await pane.waitFor('both ignored approvals', (s) => lines(s).includes(IGNORED_SIGNAL));
    await screenToPng(screen, path.join(dir, 'ignored-decisions-watch.png'));
    keepScreenshot(path.join(dir, 'ignored-decisions-watch.png'));
    console.log(`ferry status --watch at the gate:\n${screen}`);
    expect(lines(screen)).toEqual(expect.arrayContaining([IGNORED_UPDATE, IGNORED_SIGNAL]));
    expect(lines(screen).indexOf(IGNORED_UPDATE)).toBeLessThan(lines(screen).indexOf(IGNORED_SIGNAL));
    expect(screen).toMatch(new RegExp(`^${vmWorkflowId} \\(migrateVm\\): RUNNING$`, 'm'));
    expect(screen).toMatch(/^ {2}stage: awaiting-approval \(for \d/m);
    expect(screen).not.toContain('approved by');

    const once = spawnFerry(['status', vmWorkflowId], ferryEnv());
    expect(await once.exited).toBe(0);
    expect(lines(once.output())).toEqual(expect.arrayContaining([IGNORED_UPDATE, IGNORED_SIGNAL]));
    expect(once.output()).not.toContain('approved by');
    // Nothing moved: the VM still waits, nothing shut down.
    const status = await temporal.client.workflow.getHandle(vmWorkflowId).query(migrationStatusQuery);
    expect(status.stage).toBe('awaiting-approval');
    expect(status.actions.map((a) => a.kind)).not.toContain('shutdown');
  });

  it("the Temporal UI's workflow page names the VM and shows its wait and the ignored approval", async () => {
    const description = await temporal.client.workflow.getHandle(vmWorkflowId).describe();
    const summary = (await description.staticSummary())!;
    expect(summary).toMatch(/^scale-0001 → VM \d+ on \S+$/);
    // What the UI's "User Metadata" tab shows: the summary and details set at start, and the current
    // details the running workflow answers (the wait, and the last message it did not act on).
    const shown = new RegExp(
      `Summary .*${escapeRegExp(summary)} .*Details .*wave ${waveId}.* Current Details .*` +
        `scale-0001: awaiting-approval; waiting for cutover approval since \\d\\d:\\d\\d:\\d\\d UTC; ` +
        `2 ignored, the last: approve by mallory \\(signal\\): ${escapeRegExp(NOT_AN_APPROVER)}`,
    );
    const browser = await BrowserPage.open({ width: 1400, height: 1000 });
    try {
      // As a person would: the workflow's page by its id, then its User Metadata tab.
      await browser.goto(`${server.uiUrl}/namespaces/default/workflows/${encodeURIComponent(vmWorkflowId)}`);
      await browser.waitForText('the workflow page', (t) => t.includes('User Metadata') && t.includes(vmWorkflowId));
      await browser.clickLink('User Metadata');
      const text = await browser.waitForText('the summary and current details', (t) => shown.test(t));
      const png = await browser.screenshot(path.join(dir, 'ignored-decisions-ui.png'));
      keepScreenshot(path.join(dir, 'ignored-decisions-ui.png'));
      expect(text).toMatch(shown);
      expect(text).toContain(`Workflow Type migrateVm`);
      // The worker serves the queue: the UI does not warn of the contrary.
      expect(text).not.toContain('No workers polling');
      expect(png.length).toBeGreaterThan(30_000); // a drawn page, not a blank one
    } finally {
      await browser.close();
    }
  });

  it('an approval by raw signal is taken and says unsigned, at the gate and once the VM migrated', async () => {
    expect(await rawSignal({ by: 'alice', reason: 'window 7' })).toMatchObject({ code: 0 });
    await pane!.waitFor('the approval', (s) => lines(s).includes(APPROVED));
    const outcome = await readWaveOutcome(temporal.client, temporal.client.workflow.getHandle(`${waveId}-wave`));
    expect(outcome.status.vms.map((vm) => `${vm.name} ${vm.outcome}`)).toEqual(['scale-0001 migrated']);
    const screen = await pane!.waitFor('the migrated VM', (s) => /: COMPLETED$/m.test(s), 30_000);
    await screenToPng(screen, path.join(dir, 'ignored-decisions-approved.png'));
    keepScreenshot(path.join(dir, 'ignored-decisions-approved.png'));
    console.log(`ferry status --watch once the VM migrated:\n${screen}`);
    expect(lines(screen)).toEqual(expect.arrayContaining([IGNORED_UPDATE, IGNORED_SIGNAL, APPROVED]));
    expect(screen).toMatch(/^ {2}stage: done, outcome migrated$/m);

    const once = spawnFerry(['status', vmWorkflowId], ferryEnv());
    expect(await once.exited).toBe(0);
    expect(lines(once.output())).toEqual(expect.arrayContaining([IGNORED_UPDATE, IGNORED_SIGNAL, APPROVED]));
  });
});

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
