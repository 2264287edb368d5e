import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { approveCutoverSignal, approveWaveUpdate } from '../../src/domain/messages';
import { LAB_APPROVERS } from '../../lab/migration-lab';
import { toolPath } from '../../lab/tools';
import type { ReportModel } from '../../src/report';
import type { migrationWave } from '../../workflows/migration-wave';
import { keepScreenshot, renderInChromium } from '../helpers/chromium';
import { labWorkers, useMigrationLab } from '../helpers/migration-lab';
import { run, spawnFerry } from '../helpers/processes';
import { devServerAddress } from '../helpers/temporal';

const NAMES = ['mig-web01', 'mig-db01', 'mig-legacy01', 'mig-snap01', 'scale-0001', 'scale-0002', 'scale-0003'];
/**
 * The VMs that get a workflow: mig-snap01 is refused at discovery (snapshots), mig-legacy01 after its
 * vMotion, before its approval gate (its disk stays on LocalDS_0).
 */
const VM_WORKFLOWS = ['mig-web01', 'mig-db01', 'mig-legacy01', 'scale-0001', 'scale-0002', 'scale-0003'];
const AT_THE_GATE = VM_WORKFLOWS.filter((n) => n !== 'mig-legacy01');
const LEGACY_REASON = /^Hard disk 1 is on LocalDS_0 \(.*\), not on the migration datastore nfs-migration/;
const NOT_AN_APPROVER = `mallory is not an approver (approvers: ${LAB_APPROVERS.join(', ')})`;

describe('ferry report of a lab wave, opened in a browser', () => {
  jest.setTimeout(600_000);
  const suite = useMigrationLab();
  let dir: string;
  let waveId: string;
  let waiting: ReportModel | undefined;
  /** What `ferry approve --by mallory` of the wave printed: refused. */
  let refusedApproval: { code: number | null; output: string };
  const allWaiting = (m: ReportModel | undefined) =>
    m?.vms.length === VM_WORKFLOWS.length &&
    m.vms
      .filter((vm) => vm.outcome === 'refused')
      .map((vm) => vm.name)
      .join() === 'mig-legacy01' &&
    m.vms
      .filter((vm) => vm.name !== 'mig-legacy01')
      .every((vm) => vm.bars.some((b) => b.category === 'awaiting-approval' && b.open));

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ferry-report-'));
    const workers = await labWorkers(suite.temporal.nativeConnection, suite.lab.deps);
    waveId = workers.taskQueue;
    await workers.run(async () => {
      const wave = await suite.temporal.client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue: workers.taskQueue,
        workflowId: `${waveId}-wave`,
        args: [{ waveId, selection: { names: NAMES } }],
      });
      // Before anyone approves, the report of the running wave shows every VM waiting for it.
      for (let i = 0; i < 240 && !allWaiting(waiting); i++) {
        await new Promise((r) => setTimeout(r, 500));
        const shown = spawnFerry(['report', waveId, '--json'], { TEMPORAL_ADDRESS: devServerAddress() });
        if ((await shown.exited) === 0) waiting = JSON.parse(shown.output()) as ReportModel;
      }
      // At the gate, two approvals not taken: mallory's by `ferry approve` of the wave (an update,
      // refused) and by a raw `temporal workflow signal` to mig-db01 (ignored).
      const refused = spawnFerry(['approve', waveId, '--by', 'mallory', '--reason', 'let me'], {
        TEMPORAL_ADDRESS: devServerAddress(),
      });
      refusedApproval = { code: await refused.exited, output: refused.output() };
      const db01 = waiting?.vms.find((vm) => vm.name === 'mig-db01')?.workflowId ?? 'mig-db01 not seen';
      const signal = await run(toolPath('temporal'), [
        ...['workflow', 'signal', '--address', devServerAddress(), '--workflow-id', db01],
        ...['--name', approveCutoverSignal.name, '--input', JSON.stringify({ by: 'mallory', reason: 'let me' })],
      ]);
      if (signal.code !== 0) throw new Error(`temporal workflow signal failed: ${signal.stderr}`);
      for (;;) {
        try {
          await wave.executeUpdate(approveWaveUpdate, { args: [{ by: 'lab-admin', reason: 'report test cutover' }] });
          break;
        } catch (err) {
          if (!/still loading/.test(String((err as { cause?: Error }).cause?.message))) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      await wave.result();
    });
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `ferry report` of the wave, named by its wave id or (`byWorkflowId`) its workflow id. */
  const ferry = async (args: string[], byWorkflowId = false) => {
    const p = spawnFerry(['report', byWorkflowId ? `${waveId}-wave` : waveId, ...args], {
      TEMPORAL_ADDRESS: devServerAddress(),
    });
    const code = await p.exited;
    return { code, output: p.output() };
  };

  it('writes one self-contained HTML file that chromium renders with one timeline row per VM, without scripts or fetches', async () => {
    const html = path.join(dir, 'wave.html');
    const made = await ferry(['--out', html]);
    expect(made).toEqual({ code: 0, output: `report: 6 VMs of ${waveId}-wave (completed) → ${html}\n` });
    const text = readFileSync(html, 'utf8');
    // Self-contained: no script, no stylesheet or image to load, no address anywhere.
    expect(text).not.toMatch(/<script|<link|<img|<iframe|src=|url\(|@import|https?:|\/\/[a-z]/i);

    const page = await renderInChromium(html, path.join(dir, 'report-wave.png'), { width: 1280, height: 1000 });
    keepScreenshot(path.join(dir, 'report-wave.png'));
    expect([page.width, page.height]).toEqual([1280, 1000]);
    expect(page.png.length).toBeGreaterThan(30_000); // a drawn page, not a blank one
    expect(page.log).not.toMatch(/CONSOLE|Uncaught|net::ERR/);
    const rows = [...page.dom.matchAll(/<g class="vm-row" data-vm="([^"]+)" data-outcome="([^"]+)"/g)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(rows.sort()).toEqual(
      VM_WORKFLOWS.map((n) => `${n} ${n === 'mig-legacy01' ? 'refused' : 'migrated'}`).sort(),
    );
    // Each migrated VM has its stages drawn, the approval wait among them.
    for (const name of VM_WORKFLOWS.filter((n) => n !== 'mig-legacy01')) {
      const row = page.dom.slice(page.dom.indexOf(`data-vm="${name}"`));
      const stages = [
        ...row
          .slice(0, row.indexOf('</g><g class="vm-row"') >>> 0)
          .matchAll(/<g class="bar stage[^"]*" data-category="([^"]+)"/g),
      ].map((m) => m[1]);
      expect(stages).toEqual(
        expect.arrayContaining(['shell', 'relocate', 'awaiting-approval', 'shutdown', 'import', 'verify']),
      );
    }
    expect(page.dom).toContain('<td>mig-snap01</td>');
    expect(page.dom).toContain('<td>mig-legacy01</td><td>Hard disk 1 is on LocalDS_0 (');
    expect(page.dom).toMatch(
      /<td>approve<\/td><td>lab-admin<\/td><td>[^<]+ UTC<\/td><td>update, unsigned<\/td><td>report test cutover<\/td><td>all<\/td>/,
    );
    // The approvals not taken, each with why: the wave's refused update, mig-db01's ignored signal. The
    // sections are below the first screen: a window as tall as the page shows them too.
    const whole = await renderInChromium(html, path.join(dir, 'report-wave-whole.png'), { width: 1280, height: 2000 });
    keepScreenshot(path.join(dir, 'report-wave-whole.png'));
    expect(refusedApproval).toEqual({
      code: 1,
      output: expect.stringContaining(`approve refused by ${waveId}-wave: ${NOT_AN_APPROVER}`),
    });
    expect(whole.dom).toContain(
      '<h2>Ignored messages</h2><table><thead><tr><th>VM</th><th>message</th><th>why it was ignored</th></tr></thead><tbody>' +
        `<tr><td>the wave</td><td>approve by mallory (update)</td><td>${NOT_AN_APPROVER}</td></tr>` +
        `<tr><td>mig-db01</td><td>approve by mallory (signal)</td><td>${NOT_AN_APPROVER}</td></tr></tbody></table>`,
    );
    expect(whole.dom).toContain('<div class="value">2</div><div class="label">ignored messages</div>');
  });

  it('draws a running wave as far as it got: every VM at the approval gate, still open, but the one refused before it', () => {
    expect(waiting).toMatchObject({ state: 'running', id: waveId });
    expect(allWaiting(waiting)).toBe(true);
    expect(waiting!.endedAt).toBeUndefined();
    // The refusal at discovery comes from the wave's status query (it has no result yet); mig-legacy01's
    // from its own workflow's result, with its reason, before anyone approved.
    expect(waiting!.refusals.map((r) => r.vm).sort()).toEqual(['mig-legacy01', 'mig-snap01']);
    expect(waiting!.refusals.find((r) => r.vm === 'mig-legacy01')!.reasons).toEqual([
      expect.stringMatching(LEGACY_REASON),
    ]);
    for (const vm of waiting!.vms)
      expect(vm.bars.filter((b) => b.lane === 'stage').map((b) => b.category)).toEqual(
        AT_THE_GATE.includes(vm.name)
          ? ['validate', 'networks', 'shell', 'relocate', 'awaiting-approval']
          : ['validate', 'networks', 'shell', 'relocate'],
      );
  });

  it('prints the model with --json and a summary with --md', async () => {
    const json = await ferry(['--json'], true);
    expect(json.code).toBe(0);
    const model = JSON.parse(json.output) as ReportModel;
    expect(model).toMatchObject({ kind: 'migration-wave', id: waveId, state: 'completed' });
    expect(model.totals.outcomes).toEqual({ migrated: 5, refused: 1 });
    expect(model.refusals.map((r) => r.vm).sort()).toEqual(['mig-legacy01', 'mig-snap01']);
    expect(model.refusals.find((r) => r.vm === 'mig-legacy01')!.reasons).toEqual([
      expect.stringMatching(LEGACY_REASON),
    ]);
    const migrated = model.vms.filter((vm) => vm.outcome === 'migrated');
    for (const vm of migrated) {
      expect(vm.downtimeMs).toBeGreaterThan(0);
      expect(vm.downtimeMs!).toBeLessThan(vm.endedAt! - vm.startedAt);
      expect(vm.importedBytes).toBeGreaterThan(0);
    }
    expect(model.throughput[model.throughput.length - 1]).toMatchObject({
      vmsDone: 5,
      bytesImported: model.totals.bytesImported,
    });

    const md = await ferry(['--md']);
    expect(md.code).toBe(0);
    expect(md.output).toMatch(new RegExp(`^# Migration wave ${waveId} \\(completed\\)$`, 'm'));
    expect(md.output).toContain('- VM workflows: 6 (5 migrated, 1 refused)');
    expect(md.output).toMatch(/^\| mig-web01 \| 20074 \| migrated \| .*approval .* \|$/m);
    expect(md.output).toMatch(/^- \*\*mig-legacy01\*\*: Hard disk 1 is on LocalDS_0 /m);
    expect(md.output).toMatch(/^- refused: \d+; approvals: \d+; ignored messages: 2; failures: \d+$/m);
    expect(md.output).toContain(`- the wave: approve by mallory (update): ${NOT_AN_APPROVER}\n`);
    expect(md.output).toContain(`- **mig-db01**: approve by mallory (signal): ${NOT_AN_APPROVER}\n`);
  });

  it("says what it covers when pointed at one VM's workflow, and exits 1", async () => {
    const model = JSON.parse((await ferry(['--json'])).output) as ReportModel;
    const vm = spawnFerry(['report', model.vms[0]!.workflowId, '--md'], { TEMPORAL_ADDRESS: devServerAddress() });
    expect(await vm.exited).toBe(1);
    expect(vm.output()).toBe(
      `${model.vms[0]!.workflowId} is a migrateVm workflow: a report covers a migration wave (migrationWave) or a provision batch (provisionPlanned)\n`,
    );
  });
});
