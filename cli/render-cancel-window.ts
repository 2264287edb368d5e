import {
  describeSchedule,
  describeWindow,
  type CancellationRecord,
  type CutoverSchedule,
  type CutoverWindow,
  type LeftOnCancel,
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
    // What was asked; whether the shell really went is said from what the VM left (below).
    lines.push(
      `  cancelled by ${cancel.by}: ${cancel.reason}${where}${cancel.removeShells ? ' (--remove-shells)' : ''}`,
    );
    const left = cancel.left;
    if (left?.vmware) {
      const disks = left.vmware.disks.map((d) => `${d.label} on ${d.datastore ?? '?'}`).join(', ');
      const parts = [left.vmware.powerState, disks, left.relocation && `storage vMotion task ${left.relocation}`];
      lines.push(`    left on VMware: ${[...parts, shellLeft(left)].filter(Boolean).join('; ')}`);
    } else if (left) lines.push(`    ${shellLeft(left)}`);
    else if (cancel.removeShells && cancel.stage)
      lines.push('    shell: not removed yet (it goes when the VM has stopped where it is)');
  }
  return lines;
}

/** What became of the shell, as the VM's workflow found it: removed, kept (and why, when removal failed), none. */
function shellLeft(left: LeftOnCancel): string {
  if (left.shell === 'removed') return 'shell removed';
  if (left.shell === 'none') return 'no shell was built';
  return left.shellNotRemoved ? `shell kept: NOT removed: ${left.shellNotRemoved}` : 'shell kept';
}
