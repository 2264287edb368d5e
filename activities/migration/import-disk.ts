import { activityInfo } from '@temporalio/activity';
import { FerryError } from '../../src/errors';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beatTask } from '../heartbeat';
import type { ImportedDisk, ProxmoxMigrationActivities } from '../migration-contract';
import { privilegedClient } from '../pve-vm/privileged';
import { rejoinProxmoxTask } from './task-rejoin';

const DAY_MS = 24 * 3600_000;

/** import: each disk imported into the stopped shell at cutover, one task per disk. */
export function createImportDiskActivities(deps: ActivityDeps): Pick<ProxmoxMigrationActivities, 'importDisk'> {
  const { pve } = clientsOf(deps);
  return {
    async importDisk({ node, vmid, slot, source, storage }): Promise<ImportedDisk> {
      const client = () => (source.startsWith('/') ? privilegedClient(deps, `importing ${source}`) : pve());
      // A retry after the worker died: wait for the import it started instead of asking for a second one.
      const rejoined = await rejoinProxmoxTask(client, { node, vmid, type: 'qmconfig' });
      const current = await pve().disks.get(node, vmid, slot);
      if (current) {
        if (!current.volume.startsWith(`${storage}:`)) {
          throw new FerryError(
            `VM ${vmid} ${slot} holds ${current.volume}, not a disk on ${storage}; ferry does not overwrite it`,
            'policy',
          );
        }
        // On a retry the disk is most likely ours from the attempt whose answer was lost (then it took
        // an unknown time, 0 s: it does not count in the throughput), unless it was the task just rejoined.
        return {
          slot,
          volume: current.volume,
          bytes: current.sizeBytes ?? 0,
          seconds: rejoined ? (Date.now() - rejoined.startedMs) / 1000 : 0,
          alreadyPresent: !rejoined && activityInfo().attempt === 1,
        };
      }
      const started = Date.now();
      const { disk, task } = await client().disks.import(
        node,
        vmid,
        slot,
        { storage, source },
        { onProgress: beatTask('import'), copyProgress: true, timeoutMs: DAY_MS },
      );
      return {
        slot,
        volume: disk.volume,
        bytes: disk.sizeBytes ?? 0,
        seconds: (task?.durationMs ?? Date.now() - started) / 1000,
        alreadyPresent: false,
      };
    },
  };
}
