import { escapeHtml, formatClock, formatDuration, formatOffset, tickStep } from './format';
import type { Bar, Mark, ReportModel, VmReport } from './model';
import { colourOf } from './stages';

/** The timeline's geometry, in SVG units (the image scales to the page). */
const LAYOUT = {
  width: 1160,
  nameWidth: 190,
  tailWidth: 200,
  axisHeight: 34,
  rowHeight: 30,
  stageHeight: 14,
  waitHeight: 6,
};

interface Scale {
  start: number;
  span: number;
  x(t: number): number;
}

function scaleFor(model: ReportModel): Scale {
  const start = model.startedAt;
  const end = Math.max(model.endedAt ?? model.generatedAt, ...model.vms.map((vm) => vm.endedAt ?? model.generatedAt));
  const span = Math.max(1000, end - start);
  const plot = LAYOUT.width - LAYOUT.nameWidth - LAYOUT.tailWidth;
  return { start, span, x: (t) => LAYOUT.nameWidth + ((t - start) / span) * plot };
}

function axis(scale: Scale, height: number): string {
  const step = tickStep(scale.span);
  const parts: string[] = [];
  for (let offset = 0; offset <= scale.span; offset += step) {
    const x = scale.x(scale.start + offset).toFixed(1);
    parts.push(
      `<line class="grid" x1="${x}" y1="${LAYOUT.axisHeight - 4}" x2="${x}" y2="${height}"/>`,
      `<text class="tick" x="${x}" y="13" text-anchor="middle">${formatOffset(offset)}</text>`,
      `<text class="tick clock" x="${x}" y="26" text-anchor="middle">${formatClock(scale.start + offset)}</text>`,
    );
  }
  return parts.join('');
}

function barRect(bar: Bar, scale: Scale, y: number): string {
  const height = bar.lane === 'stage' ? LAYOUT.stageHeight : LAYOUT.waitHeight;
  const x = scale.x(bar.start);
  const width = Math.max(1.5, scale.x(bar.end) - x);
  const title = `${bar.label}${bar.detail ? ` (${bar.detail})` : ''}: ${formatDuration(bar.end - bar.start)}${bar.open ? ', still going' : ''}`;
  // A label goes inside the bar when it fits (about 6 units a character at this font size).
  const label =
    bar.lane === 'stage' && width > bar.label.length * 6 + 6
      ? `<text class="bar-label" x="${(x + width / 2).toFixed(1)}" y="${(y + height - 3.5).toFixed(1)}" text-anchor="middle">${escapeHtml(bar.label)}</text>`
      : '';
  return `<g class="bar ${bar.lane}${bar.open ? ' open' : ''}" data-category="${escapeHtml(bar.category)}"><rect x="${x.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="${height}" rx="2" fill="${colourOf(bar.category)}"><title>${escapeHtml(title)}</title></rect>${label}</g>`;
}

const MARK_SHAPES: Record<Mark['kind'], (x: number, y: number) => string> = {
  approval: (x, y) => `<path class="mark approval" d="M${x} ${y - 5}l4 5-4 5-4-5z"`,
  decision: (x, y) => `<path class="mark decision" d="M${x - 4} ${y - 4}h8v8h-8z"`,
  failure: (x, y) => `<path class="mark failure" d="M${x - 4} ${y - 4}l8 8m0-8l-8 8"`,
};

function markShape(mark: Mark, scale: Scale, y: number): string {
  return `${MARK_SHAPES[mark.kind](Number(scale.x(mark.at).toFixed(1)), y)}><title>${escapeHtml(mark.label)}</title></path>`;
}

function vmTail(vm: VmReport): string {
  const outcome = vm.outcome ?? vm.state;
  const down =
    vm.downtimeMs !== undefined ? ` · ${formatDuration(vm.downtimeMs)}${vm.downtimeOpen ? '+' : ''} down` : '';
  return `${outcome}${down}`;
}

/** A red line under the row from the shutdown for as long as the VM was down. */
function downtimeLine(vm: VmReport, scale: Scale, y: number): string {
  if (vm.downtimeFrom === undefined || vm.downtimeMs === undefined) return '';
  const x1 = scale.x(vm.downtimeFrom);
  const x2 = Math.max(x1 + 1.5, scale.x(vm.downtimeFrom + vm.downtimeMs));
  return `<line class="downtime" x1="${x1.toFixed(1)}" y1="${y}" x2="${x2.toFixed(1)}" y2="${y}"><title>down ${escapeHtml(formatDuration(vm.downtimeMs))}${vm.downtimeOpen ? ', still down' : ''}</title></line>`;
}

function row(vm: VmReport, index: number, scale: Scale): string {
  const top = LAYOUT.axisHeight + index * LAYOUT.rowHeight;
  const stageY = top + 4;
  const waitY = stageY + LAYOUT.stageHeight + 2;
  const outcome = escapeHtml(vm.outcome ?? vm.state);
  return [
    `<g class="vm-row" data-vm="${escapeHtml(vm.name)}" data-outcome="${outcome}">`,
    index % 2 ? `<rect class="stripe" x="0" y="${top}" width="${LAYOUT.width}" height="${LAYOUT.rowHeight}"/>` : '',
    `<text class="vm-name" x="8" y="${stageY + 11}">${escapeHtml(vm.name)}<title>${escapeHtml(vm.workflowId)}</title></text>`,
    ...vm.bars.filter((b) => b.lane === 'stage').map((b) => barRect(b, scale, stageY)),
    ...vm.bars.filter((b) => b.lane === 'wait').map((b) => barRect(b, scale, waitY)),
    downtimeLine(vm, scale, waitY + LAYOUT.waitHeight + 2),
    ...vm.marks.map((m) => markShape(m, scale, stageY + LAYOUT.stageHeight / 2)),
    `<text class="vm-tail outcome-${outcome}" x="${LAYOUT.width - LAYOUT.tailWidth + 8}" y="${stageY + 11}">${escapeHtml(vmTail(vm))}</text>`,
    '</g>',
  ].join('');
}

/** One row per VM: its stages as bars, its waits (permits, timers) as a thin lane beneath, approvals, failures and decisions as marks. */
export function renderTimeline(model: ReportModel): string {
  const scale = scaleFor(model);
  const height = LAYOUT.axisHeight + Math.max(1, model.vms.length) * LAYOUT.rowHeight + 4;
  const rows = model.vms.map((vm, i) => row(vm, i, scale)).join('');
  const empty = model.vms.length
    ? ''
    : `<text class="tick" x="${LAYOUT.nameWidth}" y="${LAYOUT.axisHeight + 18}">no VM workflow has started yet</text>`;
  return `<svg class="timeline" role="img" aria-label="timeline per VM" viewBox="0 0 ${LAYOUT.width} ${height}" width="${LAYOUT.width}" height="${height}">${axis(scale, height)}${rows}${empty}</svg>`;
}
