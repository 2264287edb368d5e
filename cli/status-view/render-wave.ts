import {
  etaWithCopies,
  progressEtaSeconds,
  type ActivityProgress,
  type RunningActivity,
  type StatusView,
  type WaveSummary,
  type WaveVmRow,
} from '../../src/domain/status';
import { describeVerification } from '../../src/domain/migration';
import { bar, fit, formatBytes, formatDuration, formatRate } from './format';

/** Activities whose progress is a copy worth a bar. */
const COPIES = new Set(['relocateVm', 'importDisk', 'liveImportVm']);
/** Stages whose work waits for a global limit's permit before its activity runs. */
export const PERMIT_STAGES: Record<string, string> = { relocate: 'vMotion permit', import: 'import permit' };

/** The header: counts per state and stage, the ETA and what it rests on. */
export function waveHeader(wave: WaveSummary, state: string, copies: readonly ActivityProgress[] = []): string[] {
  const counts = `${wave.vms} VMs: ${wave.counts.pending} pending, ${wave.counts.running} running, ${wave.counts.finished} finished`;
  const stages = Object.entries(wave.stages)
    .map(([stage, n]) => `${stage} ${n}`)
    .join(' | ');
  if (wave.source === 'visibility') {
    // The wave did not answer in time: what visibility knows, without the ETA only the wave can make.
    const started = `${wave.vms} VM workflows started: ${wave.counts.running} running, ${wave.counts.finished} finished`;
    return [
      `wave ${wave.waveId} (${state}) ${started}`,
      `  stages: ${stages || '-'}`,
      `  (from visibility: the wave's worker did not answer in time; VMs not started yet, refusals and the ETA are not shown)`,
    ];
  }
  return [
    `wave ${wave.waveId} (${wave.stage}, ${state}) ${counts}`,
    `  stages: ${stages || '-'}`,
    `  ${etaLine({ ...wave, eta: etaWithCopies(wave.eta, copies) }, copies)}`,
  ];
}

function etaLine(wave: WaveSummary, copies: readonly ActivityProgress[]): string {
  const { eta, throughput } = wave;
  const running = copies.flatMap((c) => (c.bytesPerSecond && c.phase.endsWith('import') ? [c.bytesPerSecond] : []));
  const rate = throughput.importBytesPerSecond
    ? `import ${formatRate(throughput.importBytesPerSecond)} measured`
    : running.length > 0
      ? `import ${formatRate(running.reduce((s, r) => s + r, 0) / running.length)} running now`
      : 'import rate not measured yet';
  const people = eta.waitingForPeople > 0 ? `; ${eta.waitingForPeople} wait for a person (not counted)` : '';
  if (wave.counts.pending + wave.counts.running === 0) return `ETA: done${people}`;
  const left = `${formatBytes(eta.import.bytesLeft)} to import, ${eta.import.parallel} at once`;
  const seconds = eta.seconds !== undefined ? formatDuration(eta.seconds) : 'unknown';
  return `ETA: ${seconds} (${left}; ${rate})${people}`;
}

/** One line per VM: stage, then a bar for a copy, the age of a wait, or how it ended. */
export function waveRow(row: WaveVmRow, activities: readonly RunningActivity[], now: number): string {
  const head = `${fit(row.name, 24)} ${fit(row.stage ?? row.state, 18)}`;
  return `${head} ${rowDetail(row, activities, now)}`.trimEnd();
}

/**
 * How a finished VM ended, with why: `failed: <error>`, a refusal's reasons (`refused` is its stage
 * already, so the row does not say it twice), or the outcome alone.
 */
export function endedText(row: Pick<WaveVmRow, 'stage' | 'outcome' | 'error' | 'refusal'>): string {
  const outcome = row.outcome ?? (row.error ? 'failed' : '');
  return [outcome === row.stage && row.refusal ? '' : outcome, row.refusal ?? row.error].filter(Boolean).join(': ');
}

function rowDetail(row: WaveVmRow, activities: readonly RunningActivity[], now: number): string {
  if (row.state === 'finished') {
    const guest = row.verification && `guest ${describeVerification(row.verification)}`;
    return [endedText(row), guest].filter(Boolean).join(', ');
  }
  if (row.state === 'pending') return 'not started';
  const age = row.stageSince !== undefined ? formatDuration((now - row.stageSince) / 1000) : '?';
  const copy = activities.find((a) => COPIES.has(a.activity));
  if (copy) return copyDetail(copy.progress, copy.attempt);
  if (row.stage?.startsWith('awaiting-')) return `waiting ${age}${row.node ? ` on ${row.node}` : ''}`;
  const permit = PERMIT_STAGES[row.stage ?? ''];
  if (permit && activities.length === 0) return `waits for ${permit} ${age}`;
  const running = activities[0];
  return running ? `${running.activity} ${age}` : age;
}

export function copyDetail(progress: ActivityProgress | undefined, attempt: number): string {
  const retry = attempt > 1 ? ` (attempt ${attempt})` : '';
  if (!progress) return `starting${retry}`;
  const fraction = progress.percent !== undefined ? progress.percent / 100 : undefined;
  if (fraction === undefined) return `${progress.phase} ${formatDuration(progress.elapsedMs / 1000)}${retry}`;
  const parts = [`${bar(fraction)} ${(fraction * 100).toFixed(0).padStart(3)}%`];
  if (progress.bytesDone !== undefined && progress.bytesTotal !== undefined)
    parts.push(`${formatBytes(progress.bytesDone)}/${formatBytes(progress.bytesTotal)}`);
  if (progress.bytesPerSecond) parts.push(formatRate(progress.bytesPerSecond));
  const eta = progressEtaSeconds(progress);
  if (eta !== undefined) parts.push(`ETA ${formatDuration(eta)}`);
  return parts.join(' ') + retry;
}

/** The whole frame of a wave: header, its rows, and where the other pages are. */
export function renderWave(view: StatusView, now: number): string[] {
  const wave = view.wave!;
  const copies = Object.values(view.vmActivities ?? {}).flatMap((acts) =>
    acts.flatMap((a) => (a.progress ? [a.progress] : [])),
  );
  const lines = waveHeader(wave, view.state, copies);
  for (const row of wave.rows) lines.push(`  ${waveRow(row, view.vmActivities?.[row.workflowId] ?? [], now)}`);
  const { offset, matching } = wave.page;
  const shown = wave.rows.length;
  if (shown < matching)
    lines.push(
      `  rows ${offset + 1}-${offset + shown} of ${matching} (--page, --page-size, --attention; one VM in full: ferry status <vm>)`,
    );
  // Refusals at discovery, with why (the first few; every one with --full).
  for (const r of wave.refusedShown ?? []) lines.push(`  refused at discovery: ${r.name}: ${r.reason}`);
  const more = wave.refused - (wave.refusedShown?.length ?? 0);
  if (more > 0)
    lines.push(
      `  ${wave.refusedShown?.length ? `${more} more` : more} refused at discovery (ferry status ${wave.waveId} --full)`,
    );
  return lines;
}
