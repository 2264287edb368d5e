/**
 * What day 2's workflows ask of NetBox besides the generic VM operations (pve-vm-contract.ts): the
 * settings, a VM's record with its hardware, the baseline ferry stored, and the record of what a run did.
 */
import type { Baseline, RecordSide } from '../src/domain/change';
import type { ChangeSettings } from '../src/domain/change-vm';

/** A VM's record with hardware and the baseline in `ferry_applied` (none before ferry first applied a change). */
export interface ChangeRecord extends RecordSide {
  /** NetBox's address of each interface, by slot (`net0` → `192.0.2.10/24`). */
  addresses: Record<string, string>;
}

export interface ChangeActivities {
  loadChangeSettings(): Promise<ChangeSettings>;
  readChangeRecord(input: { netboxId: number }): Promise<ChangeRecord>;
  /**
   * What a run leaves in NetBox: the new baseline in `ferry_applied`, and a journal entry on the VM that
   * says what changed and how (added once, however often the call is retried).
   */
  recordChange(input: {
    netboxId: number;
    baseline: Baseline;
    journal: { kind: 'info' | 'success' | 'warning' | 'danger'; comments: string };
  }): Promise<void>;
}
