import { vmRef } from './operations';
import { retrieveProperties, traversalSpec } from './property-collector';
import type { VimSession } from './session';

/** One of a VM's recent tasks (the VM's `recentTask` property), from its TaskInfo. */
export interface RecentTask {
  /** The Task moid. */
  task: string;
  /** What the task does, e.g. `VirtualMachine.relocate`. */
  descriptionId: string;
  /** `queued`, `running`, `success` or `error`. */
  state: string;
  queuedMs: number;
}

/**
 * The tasks vCenter lists as recent on a VM (running ones and those ended in the last minutes), oldest
 * first, in one retrieval: the VM, then each Task its `recentTask` names.
 */
export async function recentVmTasks(session: VimSession, moid: string): Promise<RecentTask[]> {
  const objects = await retrieveProperties(session, {
    propSet: [{ type: 'Task', pathSet: ['info.descriptionId', 'info.state', 'info.queueTime'] }],
    objectSet: [
      { obj: vmRef(moid), skip: true, selectSet: [traversalSpec('vmRecentTasks', 'VirtualMachine', 'recentTask')] },
    ],
  });
  return objects
    .filter((o) => o.obj.type === 'Task')
    .map((o) => ({
      task: o.obj.value,
      descriptionId: o.props.get('info.descriptionId')?.text.trim() ?? '',
      state: o.props.get('info.state')?.text.trim() ?? '',
      queuedMs: Date.parse(o.props.get('info.queueTime')?.text.trim() ?? '') || 0,
    }))
    .sort((a, b) => a.queuedMs - b.queuedMs);
}

/** vCenter's id for a storage/host vMotion (`VirtualMachine.relocate`; vcsim says `VirtualMachine.relocateVm`). */
const RELOCATE = /^VirtualMachine\.relocate(Vm)?$/;

/** The storage vMotions of a VM still queued or running (normally none or one), oldest first. */
export async function runningRelocations(session: VimSession, moid: string): Promise<RecentTask[]> {
  return (await recentVmTasks(session, moid)).filter(
    (t) => RELOCATE.test(t.descriptionId) && (t.state === 'queued' || t.state === 'running'),
  );
}

/** The VM's latest storage vMotion among its recent tasks (any state), e.g. to say how a cancelled one ended. */
export async function latestRelocation(session: VimSession, moid: string): Promise<RecentTask | undefined> {
  return (await recentVmTasks(session, moid)).filter((t) => RELOCATE.test(t.descriptionId)).at(-1);
}
