import { buildReport, renderHtml, renderMarkdown } from '../../../src/report';
import { formatBytes, formatDuration, formatOffset, tickStep } from '../../../src/report/format';
import { HistoryBuilder, recorded, recordedWaveId, T0 } from './history-builder';

const NOW = T0 + 3_600_000;

function twoVmWave() {
  const a = new HistoryBuilder()
    .started('migrateVm', 1)
    .attribute(1, { VmName: 'web<1>&"x"' })
    .stage(1, 'shell')
    .stage(4, 'shutdown')
    .stage(9, 'done');
  a.completed(9, { vm: 'web<1>&"x"', outcome: 'migrated' });
  const b = new HistoryBuilder()
    .started('migrateVm', 2)
    .attribute(2, { VmName: 'db1' })
    .stage(2, 'relocate')
    .stage(30, 'brand-new-stage');
  const parent = new HistoryBuilder().started('migrationWave', 0, { waveId: 'w-html' });
  return buildReport({
    parent: parent.read('wave-w-html'),
    children: [a.read('m-a'), b.read('m-b')],
    now: T0 + 60_000,
  });
}

describe('rendering a report', () => {
  it('HTML: one timeline row per VM, escaped names, no script and no URL of any kind', () => {
    const html = renderHtml(twoVmWave());
    expect(html.match(/<g class="vm-row"/g)).toHaveLength(2);
    expect(html).toContain('data-vm="web&lt;1&gt;&amp;&quot;x&quot;"');
    expect(html).not.toContain('web<1>');
    expect(html).not.toMatch(/<script|https?:|\/\/[a-z]|src=|<link|@import|url\(/i);
    expect(html).toContain('<title>Migration wave w-html · ferry report</title>');
    // A stage the renderer does not know is drawn, in the `other` colour, and still open.
    expect(html).toMatch(
      /<g class="bar stage open" data-category="other"><rect [^>]*><title>brand-new-stage: 30 s, still going<\/title>/,
    );
  });

  it('HTML of the recorded wave: stage bars with their labels, permit waits, totals, refusals and approvals', () => {
    const html = renderHtml(
      buildReport({ parent: recorded('migration-wave'), children: [recorded('migrate-vm')], now: NOW }),
    );
    expect(html.match(/<g class="bar stage"/g)).toHaveLength(8);
    expect(html.match(/<g class="bar wait" data-category="permit"/g)).toHaveLength(3);
    expect(html).toContain('>shell</text>');
    expect(html).toContain('<div class="value">70.0 GiB</div><div class="label">imported (while down)</div>');
    expect(html).toContain('<td>mig-snap01</td>');
    expect(html).toMatch(
      /<td>approve<\/td><td>alice<\/td><td>2026-12-06 08:43:12 UTC<\/td><td>update, unsigned<\/td><td>recorded for the replay test<\/td><td>all<\/td>/,
    );
    expect(html).toContain('<p class="none">Nothing failed.</p>');
  });

  it('Markdown: totals, a table row per VM with its stages, refusals and approvals', () => {
    const md = renderMarkdown(
      buildReport({ parent: recorded('migration-wave'), children: [recorded('migrate-vm')], now: NOW }),
    );
    expect(md).toContain(`# Migration wave ${recordedWaveId()} (completed)\n`);
    expect(md).toContain('- VM workflows: 1 (1 migrated)');
    expect(md).toContain('- downtime: median 1.1 s, max 1.1 s, total 1.1 s over 1 VMs');
    expect(md).toMatch(
      /^\| mig-web01 \| 20074 \| migrated \| validate \d+\.\d s → networks \d+\.\d s → shell \d+\.\d s → vMotion \d+\.\d s → .* \| 1\.1 s \| 70\.0 GiB imported \|$/m,
    );
    expect(md).toContain('- **mig-snap01**: mig-snap01 has snapshots; consolidate');
    expect(md).toContain(
      '- approve by **alice** at 2026-12-06 08:43:12 UTC (update, unsigned): recorded for the replay test — all VMs',
    );
  });

  it('Markdown keeps a table cell whole when a name has a pipe', () => {
    const vm = new HistoryBuilder().started('migrateVm').attribute(0, { VmName: 'a|b' }).stage(0, 'shell');
    const md = renderMarkdown(
      buildReport({
        parent: new HistoryBuilder().started('migrationWave').read('w'),
        children: [vm.read('m')],
        now: T0 + 1000,
      }),
    );
    expect(md).toMatch(/^\| a\\\|b \| – \| running \| shell 1\.0 s \| – \| – \|$/m);
  });

  it('formats durations, sizes, offsets and axis steps', () => {
    expect([999, 12_345, 65_000, 7_380_000].map(formatDuration)).toEqual(['1.0 s', '12 s', '1 min 05 s', '2 h 03 min']);
    expect([512, 1536, 20 * 2 ** 30].map(formatBytes)).toEqual(['512 B', '1.5 KiB', '20.0 GiB']);
    expect([0, 45_000, 90_000, 120_000, 5_400_000, 7_200_000].map(formatOffset)).toEqual([
      '+0 s',
      '+45 s',
      '+1:30',
      '+2 min',
      '+1 h 30',
      '+2 h',
    ]);
    expect([5000, 60_000, 3_600_000, 10 * 86_400_000].map((s) => tickStep(s))).toEqual([
      1000, 10_000, 600_000, 86_400_000,
    ]);
  });
});
