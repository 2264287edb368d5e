import { escapeHtml, formatBytes, formatCopied, formatDuration, formatTime } from './format';
import type { Bar, ReportModel } from './model';
import { REPORT_CSS } from './report-css';
import { renderThroughput } from './render-throughput';
import { renderTimeline } from './render-timeline';
import { colourOf } from './stages';

const TITLES: Record<ReportModel['kind'], string> = {
  'migration-wave': 'Migration wave',
  'provision-batch': 'Provision batch',
};

function card(value: string, label: string): string {
  return `<div class="card"><div class="value">${escapeHtml(value)}</div><div class="label">${escapeHtml(label)}</div></div>`;
}

function cards(model: ReportModel): string {
  const t = model.totals;
  const outcomes = Object.entries(t.outcomes).map(([k, v]) => card(String(v), k));
  return `<div class="cards">${[
    card(String(t.vms), 'VM workflows'),
    ...outcomes,
    card(String(t.refused), 'refusals, with discovery'),
    card(String(t.approvals), 'approvals'),
    card(String(t.ignored), 'ignored messages'),
    card(String(t.failures), 'failures'),
    ...(t.downtime.count
      ? [card(formatDuration(t.downtime.medianMs), `median downtime (max ${formatDuration(t.downtime.maxMs)})`)]
      : []),
    ...(t.bytesImported ? [card(formatBytes(t.bytesImported), 'imported (while down)')] : []),
    ...(t.bytesMovedLive ? [card(formatBytes(t.bytesMovedLive), 'moved live after the boot')] : []),
    card(formatDuration(t.durationMs), model.endedAt === undefined ? 'running for' : 'duration'),
  ].join('')}</div>`;
}

/** One entry per colour used, stages first, in the order they appear. */
function legend(model: ReportModel): string {
  const seen = new Map<string, Bar>();
  for (const bar of model.vms.flatMap((vm) => vm.bars))
    if (!seen.has(`${bar.lane}:${bar.category}`)) seen.set(`${bar.lane}:${bar.category}`, bar);
  const bars = [...seen.values()].sort((a, b) => (a.lane === b.lane ? 0 : a.lane === 'stage' ? -1 : 1));
  const items = bars.map(
    (b) =>
      `<span><i class="${b.lane}" style="background:${colourOf(b.category)}"></i>${escapeHtml(b.lane === 'wait' ? b.label.replace(/ .*/, '') + ' wait' : b.label)}</span>`,
  );
  const marks =
    '<span><i style="background:#cf1124;height:2px"></i>downtime</span><span>◆ approval</span><span>■ decision</span><span>✕ failure</span><span>dashed: still going</span>';
  return `<div class="legend">${items.join('')}${marks}</div>`;
}

function table(headers: string[], rows: string[][], empty: string): string {
  if (!rows.length) return `<p class="none">${escapeHtml(empty)}</p>`;
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows
    .map((r) => `<tr>${r.map((c) => (c.startsWith('<td') ? c : `<td>${c}</td>`)).join('')}</tr>`)
    .join('');
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

const num = (text: string) => `<td class="num">${escapeHtml(text)}</td>`;
const when = (at: number | undefined) => (at === undefined ? '–' : escapeHtml(formatTime(at)));

function vmTable(model: ReportModel): string {
  const rows = model.vms.map((vm) => [
    escapeHtml(vm.name),
    num(vm.vmid !== undefined ? String(vm.vmid) : '–'),
    escapeHtml(vm.outcome ?? vm.state),
    escapeHtml(vm.verification ?? '–'),
    num(vm.downtimeMs !== undefined ? `${formatDuration(vm.downtimeMs)}${vm.downtimeOpen ? '+' : ''}` : '–'),
    num(vm.conversionMs !== undefined ? formatDuration(vm.conversionMs) : '–'),
    num(formatCopied(vm.importedBytes, vm.movedLiveBytes)),
    num(formatDuration((vm.endedAt ?? model.generatedAt) - vm.startedAt)),
    escapeHtml(vm.error ?? ''),
  ]);
  return table(
    ['VM', 'VMID', 'outcome', 'guest', 'downtime', 'of it converting', 'disks copied', 'took', 'error'],
    rows,
    'No VM workflow has started.',
  );
}

function sections(model: ReportModel): string {
  const refusals = table(
    ['VM', 'reasons'],
    model.refusals.map((r) => [escapeHtml(r.vm), r.reasons.map(escapeHtml).join('<br>')]),
    'No VM was refused.',
  );
  const approvals = table(
    ['decision', 'by', 'when', 'via', 'why', 'VMs'],
    model.approvals.map((a) => [
      escapeHtml(a.decision),
      escapeHtml(a.by),
      when(a.at),
      escapeHtml(`${a.via ?? '–'}${a.signed === false ? ', unsigned' : a.signed ? ', signed' : ''}`),
      escapeHtml(a.reason),
      escapeHtml(a.vms === 'all' ? 'all' : a.vms.join(', ')),
    ]),
    'No approval was given.',
  );
  const ignored = table(
    ['VM', 'message', 'why it was ignored'],
    model.ignored.map((i) => [escapeHtml(i.vm ?? 'the wave'), escapeHtml(i.message), escapeHtml(i.reason)]),
    'No message was ignored.',
  );
  const failures = table(
    ['VM', 'when', 'what', 'message', 'decisions taken'],
    model.failures.map((f) => [
      escapeHtml(f.vm),
      when(f.at),
      escapeHtml(f.what),
      escapeHtml(f.message),
      f.decisions.length
        ? f.decisions
            .map((d) =>
              escapeHtml(
                `${d.decision} by ${d.by}${d.at !== undefined ? ` at ${formatTime(d.at)}` : ''}${d.via ? ` (${d.via})` : ''}: ${d.reason}`,
              ),
            )
            .join('<br>')
        : '<span class="none">none</span>',
    ]),
    'Nothing failed.',
  );
  return `<h2>VMs</h2>${vmTable(model)}<h2>Refusals</h2>${refusals}<h2>Approvals</h2>${approvals}<h2>Ignored messages</h2>${ignored}<h2>Failures and decisions</h2>${failures}`;
}

/** The whole report as one HTML file: inline CSS and SVG, no script, nothing fetched. */
export function renderHtml(model: ReportModel): string {
  const title = `${TITLES[model.kind]} ${model.id}`;
  const span = `${formatTime(model.startedAt)} → ${model.endedAt !== undefined ? formatTime(model.endedAt) : 'still running'}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ferry report</title><style>${REPORT_CSS}</style></head>
<body>
<h1>${escapeHtml(title)} <span class="state ${escapeHtml(model.state)}">${escapeHtml(model.state)}</span></h1>
<p class="sub">${escapeHtml(model.workflowId)} · ${escapeHtml(span)}</p>
${cards(model)}
<h2>Timeline per VM</h2>
<div class="panel">${renderTimeline(model)}${legend(model)}</div>
<h2>Throughput</h2>
<div class="panel">${renderThroughput(model)}</div>
${sections(model)}
<footer>Made by ferry report at ${escapeHtml(formatTime(model.generatedAt))} from the workflows' histories. Hover a bar for its duration.</footer>
</body></html>
`;
}
