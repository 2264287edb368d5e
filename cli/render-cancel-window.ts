import {
  describeSchedule,
  describeWindow,
  type CancellationRecord,
  type CutoverSchedule,
  type CutoverWindow,
} from '../src/domain/migration';

/** Status lines for a cutover's schedule (window, approve --at), a wave's window and a cancel. */
export function renderCancelAndWindow(s: Record<string, unknown>): string[] {
  const lines: string[] = [];
  if (s.cutoverWindow) lines.push(`  cutover window: ${describeWindow(s.cutoverWindow as CutoverWindow)}`);
  if (s.schedule) lines.push(`  cutover ${describeSchedule(s.schedule as CutoverSchedule)}`);
  const cancel = s.cancellation as (CancellationRecord & { removeShells: boolean }) | undefined;
  if (cancel?.by) {
    const where = cancel.stage
      ? ` in stage ${cancel.stage} (${cancel.effect === 'stops-now' ? 'stopped there' : 'waits for retry or rollback at its next safe point'})`
      : '';
    lines.push(`  cancelled by ${cancel.by}: ${cancel.reason}${where}${cancel.removeShells ? ', shells removed' : ''}`);
    const left = cancel.left;
    if (left?.vmware) {
      const disks = left.vmware.disks.map((d) => `${d.label} on ${d.datastore ?? '?'}`).join(', ');
      lines.push(
        `    left on VMware: ${left.vmware.powerState}; ${disks}${left.relocation ? `; storage vMotion task ${left.relocation}` : ''}; shell ${left.shell}`,
      );
    }
  }
  return lines;
}
