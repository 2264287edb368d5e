import { setHandler } from '@temporalio/workflow';
import type { ChangeSettings, ChangeStage, ChangeStatus, SentStep } from '../../src/domain/change-vm';
import { netboxEditedSignal } from '../../src/domain/messages';
import { provisioningTiming } from '../provisioning/run-context';
import { activityProfiles, type ActivityProfiles } from '../vm/proxies';
import { VmRun } from '../vm/run';
import { ChangeGate } from './gate';

/**
 * One `changeVm` run, as every stage sees it: the kernel's run (status, stages, waits) with the
 * settings, the activity profiles, the gate for changes that wait for a restart, and NetBox's edits as
 * they arrive (a burst becomes one plan; an edit at the gate makes the plan again). Its actions are the
 * request groups it sent, in the form the plan states them.
 */
export class ChangeRun extends VmRun<ChangeStage, ChangeStatus, SentStep> {
  readonly acts: ActivityProfiles;
  readonly gate: ChangeGate;

  constructor(
    readonly settings: ChangeSettings,
    status: ChangeStatus,
  ) {
    super(status, (s) => s.sent, `VM ${status.vmid}`);
    this.acts = activityProfiles(provisioningTiming(settings));
    this.gate = new ChangeGate(status, settings.approvers, settings.approvals, () => this.showDetails());
  }

  /** How many edits NetBox has reported so far (a signal handler adds them as they come). */
  get editCount(): number {
    return this.status.edits.length;
  }
}

/** NetBox's edits, recorded as they come (set before the first await: one arrives with the start). */
export function listenForEdits(status: ChangeStatus): void {
  setHandler(netboxEditedSignal, (edit) => {
    status.edits.push(edit);
  });
}
