import { QmpError, qmpCommand } from '../../qemu/qmp';
import type { Cluster, SimVm } from '../cluster';
import { renderBytes, renderDuration, printfFixed } from '../pve-format';
import type { ImageFormat } from '../qemu-img';
import { TaskInterrupted, type TaskContext } from '../tasks';
import { qemuRuntime } from './runtime';

/**
 * A live disk move's data copy, the way qemu-server mirrors a drive of a running VM into a new volume
 * of the same VM (PVE::QemuServer::BlockJob: qemu_drive_mirror, monitor with completion `complete`,
 * qemu_blockjobs_cancel, qemu_handle_concluded_blockjob):
 *
 * - QMP `drive-mirror` on `drive-<slot>`: `sync: full` (the whole backing chain is copied, so the target
 *   stands alone), `mode: existing` (the volume is allocated beforehand), the target's `format`,
 *   `auto-dismiss: false` (the job stays, concluded, until dismissed, so its error can be read),
 *   `speed` = bwlimit × 1024 when a limit is given;
 * - `query-block-jobs` at once and then every second, one progress line per poll until the job is ready
 *   (`drive-scsi0: transferred 1.1 GiB of 32.0 GiB (3.44%) in 1s`, `…, ready`), then `all 'mirror' jobs
 *   are ready`, `Completing block job...` and `job-complete` (PVE 8: `block-job-complete`), which makes
 *   QEMU switch the drive to the target; the concluded job is dismissed (`job-dismiss`) and, once gone,
 *   `mirror-job finished`;
 * - on any error (QEMU gone, a job error, a stop of the task, an injected fault) the job is cancelled
 *   (`block-job-cancel`, polled until it is gone, `Cancelling block job` / `Done.`), and the error is
 *   thrown as `block job (mirror) error: …`: the drive stays on its source.
 *
 * qemu-server takes this path (rather than blockdev-mirror with job `mirror-<slot>`) when the running
 * machine is older than 10.0: the simulator's QEMU runs its own machine version (Debian's QEMU 7.2,
 * drives given with -drive), so this is what qemu-server would choose for it on both flavours. The
 * target is not wrapped in Proxmox's `zeroinit:` filter (a pve-qemu patch upstream QEMU lacks).
 */
export interface MirrorSpec {
  cluster: Cluster;
  vm: SimVm;
  /** The drive's config key: the job is `drive-<key>`. */
  key: string;
  target: { path: string; format: ImageFormat };
  /** KiB/s (the API's bwlimit). */
  bwlimit?: number;
  task: TaskContext;
  /**
   * The handler the task's stop interrupts with: move_disk's worker dies "interrupted by signal".
   * Checked before each QMP command and during the waits between polls.
   */
  interruptedMessage: string;
  /** An injected fault: raised inside the job's monitoring after its first progress line, as a job error would be. */
  fault?: string;
  /**
   * A live import's copy (live-restore.ts): the job is `restore-drive-<slot>` and the task log shows
   * qemu-server's lines for its `stream` jobs (progress, `…: stream-job finished`), not a mirror's.
   */
  asRestoreStream?: boolean;
}

interface BlockJobInfo {
  type: string;
  device: string;
  len?: number;
  offset?: number;
  busy?: boolean;
  ready?: boolean;
  status?: string;
  error?: string;
  'io-status'?: string;
}

const POLL_MS = 1_000;
/** qemu-server gives up completing after this many "cannot be completed" answers. */
const MAX_COMPLETE_RETRIES = 300;
const CANCEL_POLLS = 120;

const nowSeconds = () => Math.floor(Date.now() / 1000);
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const plainSleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** mon_cmd: one QMP command on its own connection; fails "VM N not running" once QEMU is gone. */
async function monCmd(
  cluster: Cluster,
  vmid: number,
  command: string,
  args?: Record<string, unknown>,
  timeoutMs = 5_000,
): Promise<unknown> {
  const instance = qemuRuntime(cluster)?.get(vmid);
  if (!instance) throw new Error(`VM ${vmid} not running`);
  try {
    return await qmpCommand(instance.qmp, command, args, { timeoutMs });
  } catch (err) {
    if (!qemuRuntime(cluster)?.get(vmid)) throw new Error(`VM ${vmid} not running`);
    const why =
      err instanceof QmpError && err.errorClass === undefined
        ? messageOf(err).replace(/^QMP command '[^']*' failed - /, '')
        : messageOf(err);
    throw new Error(`VM ${vmid} qmp command '${command}' failed - ${why}`);
  }
}

export async function mirrorDrive(spec: MirrorSpec): Promise<void> {
  const { cluster, vm, task } = spec;
  const jobId = spec.asRestoreStream ? `restore-drive-${spec.key}` : `drive-${spec.key}`;
  const mirrorLog = (line: string) => {
    if (!spec.asRestoreStream) task.log(line);
  };
  const job = { ready: false, complete: false };
  const mon = (command: string, args?: Record<string, unknown>, timeoutMs?: number) =>
    monCmd(cluster, vm.vmid, command, args, timeoutMs);
  const checkStop = () => {
    if (task.signal.aborted) throw new TaskInterrupted(spec.interruptedMessage);
  };
  const sleep = async (ms: number) => {
    try {
      await task.sleep(ms);
    } catch (err) {
      if (err instanceof TaskInterrupted) throw new TaskInterrupted(spec.interruptedMessage);
      throw err;
    }
  };

  /** qemu_handle_concluded_blockjob: dismiss (a failure only warns), then the job's error, if any. */
  const handleConcluded = async (info: BlockJobInfo) => {
    try {
      await mon('job-dismiss', { id: jobId });
    } catch (err) {
      task.warn(`${jobId}: failed to dismiss job - ${messageOf(err)}`);
    }
    if (info.error) throw new Error(`${jobId}: ${info.error} (io-status: ${info['io-status'] ?? ''})`);
  };

  /**
   * qemu_blockjobs_cancel: cancel, then poll (not interruptible: the stop already came) until the job is
   * gone. qemu-server polls for ever; the simulator gives up after CANCEL_POLLS so a task cannot hang.
   */
  const cancel = async () => {
    task.log(`${jobId}: Cancelling block job`);
    await mon('block-job-cancel', { device: jobId }).catch(() => undefined);
    for (let poll = 0; poll < CANCEL_POLLS; poll++) {
      const stats = (await mon('query-block-jobs')) as BlockJobInfo[];
      const info = stats.find((s) => s.device === jobId);
      if (info?.status === 'concluded') await handleConcluded(info).catch((err: unknown) => task.warn(messageOf(err)));
      if (!info) {
        task.log(`${jobId}: Done.`);
        return;
      }
      await plainSleep(POLL_MS);
    }
    throw new Error(`${jobId}: still there ${CANCEL_POLLS} s after block-job-cancel`);
  };

  const args: Record<string, unknown> = {
    device: `drive-${spec.key}`,
    'job-id': jobId,
    sync: 'full',
    target: spec.target.path,
    'auto-dismiss': false,
    mode: 'existing',
    format: spec.target.format,
  };
  if (spec.bwlimit !== undefined) {
    args.speed = spec.bwlimit * 1024;
    task.log(
      `drive mirror is starting for ${jobId} with bandwidth limit: ${spec.bwlimit} ${cluster.flavour === '8.4' ? 'KB/s' : 'KiB/s'}`,
    );
  } else mirrorLog(`drive mirror is starting for ${jobId}`);
  try {
    checkStop();
    await mon('drive-mirror', args, 10_000);
  } catch (err) {
    try {
      await cancel();
    } catch (cancelErr) {
      task.log(messageOf(cancelErr));
    }
    throw new Error(`mirroring error: ${messageOf(err)}`);
  }

  try {
    let completeRetries = 0;
    let lines = 0;
    const start = nowSeconds();
    for (;;) {
      if (completeRetries > MAX_COMPLETE_RETRIES) throw new Error("block job ('mirror') timed out");
      checkStop();
      const stats = (await mon('query-block-jobs')) as BlockJobInfo[];
      const now = nowSeconds();
      const info = stats.find((s) => s.type === 'mirror' && s.device === jobId);
      if (!info) {
        if (!job.complete) throw new Error(`${jobId}: 'mirror' has been cancelled`);
        task.log(`${jobId}: ${spec.asRestoreStream ? 'stream' : 'mirror'}-job finished`);
        return;
      }
      if (info.status === 'concluded') await handleConcluded(info);
      if (info.len) {
        const done = info.offset ?? 0;
        let status = `transferred ${renderBytes(done, 1)} of ${renderBytes(info.len, 1)} (${printfFixed((done * 100) / info.len, 2)}%) in ${renderDuration(now - start)}`;
        if (info.ready && !spec.asRestoreStream) status += info.busy ? ', still busy' : ', ready';
        if (!job.ready) {
          task.log(`${jobId}: ${status}`);
          lines++;
        }
        job.ready = !!info.ready;
      }
      if (spec.fault && lines > 0) throw new Error(spec.fault);
      if (info.ready) {
        mirrorLog("all 'mirror' jobs are ready");
        mirrorLog(`${jobId}: Completing block job...`);
        try {
          checkStop();
          if (cluster.flavour === '8.4') await mon('block-job-complete', { device: jobId });
          else await mon('job-complete', { id: jobId });
          mirrorLog(`${jobId}: Completed successfully.`);
          job.complete = true;
        } catch (err) {
          if (err instanceof TaskInterrupted) throw err;
          if (!/cannot be completed/.test(messageOf(err)))
            throw new Error(`${jobId}: block job cannot be completed - ${messageOf(err)}`);
          task.log(`${jobId}: block job cannot be completed, trying again.`);
          completeRetries++;
        }
      }
      await sleep(POLL_MS);
    }
  } catch (err) {
    await cancel().catch(() => undefined);
    throw new Error(`block job (mirror) error: ${messageOf(err)}`);
  }
}
