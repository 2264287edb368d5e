import { formatBytes, formatClock, formatCopied, formatOffset, tickStep } from './format';
import type { ReportModel, ThroughputPoint } from './model';

const CHART = { width: 1160, height: 190, left: 70, right: 80, top: 22, bottom: 40 };

/** A step line through the points (a value holds until the next change), up to `end`. */
function stepPath(
  points: readonly ThroughputPoint[],
  value: (p: ThroughputPoint) => number,
  x: (t: number) => number,
  y: (v: number) => number,
  end: number,
): string {
  let d = '';
  points.forEach((p, i) => {
    d +=
      i === 0 ? `M${x(p.at).toFixed(1)} ${y(value(p)).toFixed(1)}` : `H${x(p.at).toFixed(1)}V${y(value(p)).toFixed(1)}`;
  });
  return `${d}H${x(end).toFixed(1)}`;
}

/** The bytes axis says what it counts: an overlay wave imports nothing and moves its disks live. */
function bytesTitle(last: ThroughputPoint | undefined): string {
  if (last?.bytesMovedLive && last.bytesImported) return 'disks copied';
  return last?.bytesMovedLive ? 'moved live after the boot' : 'imported';
}

/** Cumulative VMs done (left axis) and disk data copied (right axis) over the wave's time. */
export function renderThroughput(model: ReportModel): string {
  const start = model.startedAt;
  const end = Math.max(model.endedAt ?? model.generatedAt, ...model.throughput.map((p) => p.at));
  const span = Math.max(1000, end - start);
  const plotW = CHART.width - CHART.left - CHART.right;
  const plotH = CHART.height - CHART.top - CHART.bottom;
  const x = (t: number) => CHART.left + ((t - start) / span) * plotW;
  const maxVms = Math.max(1, model.vms.length);
  const copied = (p: ThroughputPoint) => p.bytesImported + p.bytesMovedLive;
  const maxBytes = Math.max(1, ...model.throughput.map(copied));
  const yVms = (v: number) => CHART.top + plotH - (v / maxVms) * plotH;
  const yBytes = (v: number) => CHART.top + plotH - (v / maxBytes) * plotH;
  const parts: string[] = [];
  const step = tickStep(span, 8);
  for (let offset = 0; offset <= span; offset += step) {
    const tx = x(start + offset).toFixed(1);
    parts.push(`<line class="grid" x1="${tx}" y1="${CHART.top}" x2="${tx}" y2="${CHART.top + plotH}"/>`);
    parts.push(
      `<text class="tick" x="${tx}" y="${CHART.top + plotH + 16}" text-anchor="middle">${formatOffset(offset)}</text>`,
    );
    parts.push(
      `<text class="tick clock" x="${tx}" y="${CHART.top + plotH + 29}" text-anchor="middle">${formatClock(start + offset)}</text>`,
    );
  }
  for (const fraction of [0, 0.5, 1]) {
    const ty = (CHART.top + plotH - fraction * plotH).toFixed(1);
    parts.push(`<line class="grid" x1="${CHART.left}" y1="${ty}" x2="${CHART.left + plotW}" y2="${ty}"/>`);
    parts.push(
      `<text class="tick vms" x="${CHART.left - 8}" y="${ty}" dy="4" text-anchor="end">${Math.round(fraction * maxVms * 10) / 10}</text>`,
    );
    parts.push(
      `<text class="tick bytes" x="${CHART.left + plotW + 8}" y="${ty}" dy="4">${formatBytes(Math.round(fraction * maxBytes))}</text>`,
    );
  }
  const last = model.throughput[model.throughput.length - 1];
  const title = bytesTitle(last);
  parts.push(
    `<path class="line bytes" d="${stepPath(model.throughput, copied, x, yBytes, end)}"><title>${title}: ${formatCopied(last?.bytesImported ?? 0, last?.bytesMovedLive ?? 0)}</title></path>`,
  );
  parts.push(
    `<path class="line vms" d="${stepPath(model.throughput, (p) => p.vmsDone, x, yVms, end)}"><title>VMs done: ${last?.vmsDone ?? 0}</title></path>`,
  );
  parts.push(`<text class="axis-title vms" x="4" y="12">VMs done</text>`);
  parts.push(`<text class="axis-title bytes" x="${CHART.width - 4}" y="12" text-anchor="end">${title}</text>`);
  return `<svg class="throughput" role="img" aria-label="throughput over time" viewBox="0 0 ${CHART.width} ${CHART.height}" width="${CHART.width}" height="${CHART.height}">${parts.join('')}</svg>`;
}
