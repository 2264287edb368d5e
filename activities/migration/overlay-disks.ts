import { activityInfo, Context } from '@temporalio/activity';
import { CancelledFailure } from '@temporalio/common';
import { FerryError } from '../../src/errors';
import type { Disk, ProxmoxClient, TaskResult } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beatTask } from '../heartbeat';
import type { MovedDisk, ProxmoxMigrationActivities } from '../migration-contract';
import { rejoinProxmoxTask } from './task-rejoin';

const DAY_MS = 24 * 3600_000;

interface DiskMove {
  node: string;
  vmid: number;
  slot: string;
  storage: string;
  bwlimitKiBps?: number;
}

/** overlay: the overlays attached to the shell, and once the guest runs verified, each disk moved live. */
export function createOverlayDiskActivities(
  deps: ActivityDeps,
): Pick<ProxmoxMigrationActivities, 'attachDisk' | 'moveDisk'> {
  const { pve } = clientsOf(deps);
  return {
    async attachDisk({ node, vmid, slot, volume }) {
      return { attached: (await pve().disks.attach(node, vmid, slot, volume)).changed };
    },

    async moveDisk({ node, vmid, slot, storage, bandwidthMiBps }): Promise<MovedDisk> {
      // A retry after the worker died: wait for the move it started instead of asking for a second one.
      const rejoined = await rejoinProxmoxTask(pve, { node, vmid, type: 'qmmove' });
      const current = await pve().disks.get(node, vmid, slot);
      if (!current) throw new FerryError(`VM ${vmid} has no ${slot} to move`, 'invalid');
      if (current.volume.startsWith(`${storage}:`)) {
        const seconds = rejoined ? (Date.now() - rejoined.startedMs) / 1000 : 0;
        return movedDisk(slot, current, seconds, !rejoined);
      }
      const started = Date.now();
      const bwlimitKiBps = bandwidthMiBps !== undefined ? Math.max(1, Math.round(bandwidthMiBps * 1024)) : undefined;
      const task = await moveStoppable(pve, { node, vmid, slot, storage, bwlimitKiBps });
      const moved = await pve().disks.get(node, vmid, slot);
      if (!moved?.volume.startsWith(`${storage}:`))
        throw new FerryError(
          `VM ${vmid} ${slot}: the move to ${storage} ended with the disk on ${moved?.volume ?? 'nothing'}`,
          'transient',
        );
      return movedDisk(slot, moved, (task?.durationMs ?? Date.now() - started) / 1000, false);
    },
  };
}

function movedDisk(slot: string, disk: Disk, seconds: number, alreadyMoved: boolean): MovedDisk {
  return {
    slot,
    volume: disk.volume,
    bytes: disk.sizeBytes ?? 0,
    seconds,
    alreadyMoved,
    attempt: activityInfo().attempt,
  };
}

/**
 * Moves the disk, waiting on the task. Cancelled (a rollback while the disk moves): the move task is
 * stopped, as a person would stop it; PVE then cancels the mirror and frees the copy, and the VM can be
 * stopped (the move holds its lock).
 */
async function moveStoppable(pve: () => ProxmoxClient, move: DiskMove): Promise<TaskResult | undefined> {
  const { node, vmid, slot, storage, bwlimitKiBps } = move;
  let upid: string | undefined;
  const beat = beatTask('move');
  const signal = Context.current().cancellationSignal;
  const stop = () =>
    void (upid
      ? pve()
          .tasks.stop(upid)
          .catch(() => undefined)
      : undefined);
  signal.addEventListener('abort', stop);
  try {
    const { task } = await pve().disks.move(
      node,
      vmid,
      slot,
      { storage, deleteSource: true, bwlimitKiBps },
      {
        onProgress: (p) => {
          upid = p.upid;
          if (signal.aborted) stop();
          beat(p);
        },
        copyProgress: true,
        timeoutMs: DAY_MS,
      },
    );
    return task;
  } catch (err) {
    // The stopped task fails; the activity reports what it was: cancelled, not a move to retry.
    if (signal.aborted)
      throw new CancelledFailure(
        `the move of ${slot} was cancelled (task ${upid ?? 'not started'} stopped)`,
        [],
        err instanceof Error ? err : undefined,
      );
    throw err;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
