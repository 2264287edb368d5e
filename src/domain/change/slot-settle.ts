import { acts, type PlannedChange } from './change';
import { RULES } from './context';

/**
 * A NIC or a disk is one config key (`net0`, `scsi1`) with one pending value at most, so its fields'
 * changes are settled together (qemu-server keeps one `pending` value per key: PVE/API2/Qemu.pm
 * update_vm_api writes the whole value):
 * - a pending value Proxmox holds for it that ferry's plan does not make (a pending hand change the
 *   policy reports) would be replaced by any write: ferry's changes to that key are refused;
 * - a key with a change that waits for the restart takes its live changes along (one write, pending).
 */
export function settleSlot(
  slot: string,
  changes: PlannedChange[],
  pendingFields: readonly string[],
  what: string,
): void {
  const acting = changes.filter(acts);
  if (acting.length === 0) return;
  const foreign = pendingFields.filter((id) => !acting.some((c) => c.id === id));
  if (foreign.length > 0) {
    for (const change of acting) refuse(change, slot, foreign, what);
    return;
  }
  if (!acting.some((c) => c.class === 'at-restart')) return;
  for (const change of acting.filter((c) => c.class === 'live')) {
    change.class = 'at-restart';
    change.waitsForRestart = true;
    change.why = `${change.why}; but ${slot} also has a change that waits for the restart, and Proxmox keeps one pending value per ${what}: both are written for the next start`;
    change.rule = RULES.updateVm;
  }
}

function refuse(change: PlannedChange, slot: string, foreign: readonly string[], what: string): void {
  change.class = 'refused';
  change.waitsForRestart = false;
  delete change.operation;
  delete change.alreadyPending;
  change.why = `${slot} has a pending change in Proxmox that ferry does not make (${foreign.join(', ')}); a write to the ${what} would replace it: apply or revert it in Proxmox first`;
  change.rule = RULES.updateVm;
}
