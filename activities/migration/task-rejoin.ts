import { activityInfo } from '@temporalio/activity';
import { ProxmoxNotFoundError, ProxmoxTaskError, type ProxmoxClient } from '../../src/proxmox';
import { isUpid, parseUpid } from '../../src/proxmox/upid';
import type { VsphereClient } from '../../src/vsphere';
import { beatProgress, beatTask } from '../heartbeat';

/**
 * Finding the task a lost attempt started. A retry after its worker died must join that task (vCenter
 * refuses a second vMotion, PVE a second import on a locked VM) instead of starting another. The task
 * is the one the attempt heartbeated or, when it died before its first heartbeat got out, the one
 * running on the VM.
 */

/** What the last attempt heartbeated (its progress), when this is a retry. */
function earlierProgress(): Record<string, unknown> | undefined {
  const details: unknown = activityInfo().heartbeatDetails;
  return details !== null && typeof details === 'object' ? (details as Record<string, unknown>) : undefined;
}

/** The RelocateVM_Task an earlier attempt started: from its heartbeat, or on a retry the one running on the VM. */
export async function earlierRelocation(vsphere: VsphereClient, moid: string): Promise<string | undefined> {
  const details = earlierProgress();
  // `step`: what workers before typed progress heartbeated.
  const relocating = details?.phase === 'relocate' || details?.step === 'relocate';
  if (relocating && typeof details?.task === 'string') return details.task;
  return activityInfo().attempt > 1 ? (await vsphere.runningRelocations(moid))[0]?.task : undefined;
}

/**
 * Waits for the Proxmox task an earlier attempt of this activity started, so a retry after a worker died
 * joins the running import instead of colliding with its lock. The task is the one the attempt
 * heartbeated (its UPID) or, on a retry without one, a task of `type` running on the VM. Returns when
 * it ended OK; when it failed or is unknown it is noted in the heartbeat (not rejoined again) and the
 * caller starts afresh, unless `fatal` matches its exit status (then its error is thrown).
 */
export async function rejoinProxmoxTask(
  client: () => ProxmoxClient,
  running: { node: string; vmid: number; type: string },
  fatal?: RegExp,
): Promise<{ startedMs: number } | undefined> {
  let upid = earlierProgress()?.upid;
  if (!isUpid(upid) && activityInfo().attempt > 1) {
    upid = (await client().tasks.active(running))[0]?.upid;
  }
  if (!isUpid(upid)) return undefined;
  try {
    await client().waitForTask(upid, {
      onProgress: beatTask(running.type === 'qmcreate' ? 'live-import' : running.type === 'qmmove' ? 'move' : 'import'),
      copyProgress: true,
      timeoutMs: 24 * 3600_000,
    });
    return { startedMs: parseUpid(upid).starttime * 1000 };
  } catch (err) {
    if (!(err instanceof ProxmoxTaskError || err instanceof ProxmoxNotFoundError)) throw err;
    if (fatal && err instanceof ProxmoxTaskError && fatal.test(err.exitstatus)) throw err;
    beatProgress({ phase: running.type, elapsedMs: 0, earlierTask: upid, earlierError: err.message.split('\n')[0] });
    return undefined;
  }
}
