import type { StatusView } from '../../src/domain/status';
import { endedText } from './render-wave';

/**
 * What a non-terminal watch prints: one plain line per change. Each VM (and the wave's counts) has a
 * line that changes with its stage and with each tenth of its copy, so a log shows progress without
 * one line per poll.
 */
export function changeLines(view: StatusView): Map<string, string> {
  const lines = new Map<string, string>();
  if (view.wave) {
    const { counts, waveId, stage } = view.wave;
    lines.set(
      '',
      `wave ${waveId} ${stage}: ${counts.pending} pending, ${counts.running} running, ${counts.finished} finished`,
    );
    for (const row of view.wave.rows) {
      const copy = (view.vmActivities?.[row.workflowId] ?? []).find((a) => a.progress?.percent !== undefined);
      const tenth = copy ? ` ${copy.progress!.phase} ${Math.floor(copy.progress!.percent! / 10) * 10}%` : '';
      const end = row.state === 'finished' ? ` ${endedText(row) || 'failed'}` : '';
      lines.set(row.workflowId, `${row.name}: ${row.stage ?? row.state}${tenth}${end}`);
    }
    for (const r of view.wave.refusedShown ?? [])
      lines.set(`refused ${r.moid}`, `${r.name}: refused at discovery: ${r.reason}`);
    return lines;
  }
  const stage = typeof view.status?.stage === 'string' ? view.status.stage : undefined;
  lines.set('', `${view.workflowId}: ${view.state}${stage ? ` ${stage}` : ''}`);
  for (const a of view.progress) {
    const tenth = a.progress?.percent !== undefined ? ` ${Math.floor(a.progress.percent / 10) * 10}%` : '';
    lines.set(
      `activity ${a.activity}`,
      `${view.workflowId}: ${a.activity}${a.attempt > 1 ? ` (attempt ${a.attempt})` : ''}${tenth}`,
    );
  }
  return lines;
}

/** The lines of `next` that differ from `previous`. */
export function changed(previous: Map<string, string>, next: Map<string, string>): string[] {
  return [...next].filter(([key, line]) => previous.get(key) !== line).map(([, line]) => line);
}
