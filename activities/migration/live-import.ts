import { activityInfo } from '@temporalio/activity';
import type { MigratedVmSpec } from '../../src/domain/migration';
import type { ImportFromDiskSpec } from '../../src/domain/pve-vm-spec';
import { FerryError } from '../../src/errors';
import { attachedDisks, ProxmoxNotFoundError, ProxmoxTaskError, type ProxmoxClient } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beatProgress, beatTask } from '../heartbeat';
import type { LiveImported, ProxmoxMigrationActivities } from '../migration-contract';
import { privilegedClient } from '../pve-vm/privileged';
import { rejoinProxmoxTask } from './task-rejoin';

const DAY_MS = 24 * 3600_000;

/** live-import: the disk-less shell replaced by the VM created with every disk imported live (live-restore). */
export function createLiveImportActivities(deps: ActivityDeps): Pick<ProxmoxMigrationActivities, 'liveImportVm'> {
  const { pve } = clientsOf(deps);
  return {
    async liveImportVm({ spec }): Promise<LiveImported> {
      const disks = spec.importDisks ?? [];
      const byPath = disks.find((d) => d.source.startsWith('/'));
      const client = byPath ? privilegedClient(deps, `live import from ${byPath.source}`) : pve();
      return liveImport(client, spec, disks);
    },
  };
}

/**
 * Rejoins or waits for a live import already under way, replaces ferry's own states at the VMID
 * (liveImportState), and creates the VM with live-restore; looks again when the create's answer was lost.
 */
async function liveImport(
  client: ProxmoxClient,
  spec: MigratedVmSpec,
  disks: readonly ImportFromDiskSpec[],
): Promise<LiveImported> {
  const { node, vmid, name } = spec;
  let started = Date.now();
  // A retry after the worker died: wait for the live import it started (its create task).
  const rejoined = await rejoinProxmoxTask(() => client, { node, vmid, type: 'qmcreate' }, /live-restore failed/).catch(
    (err: unknown) => {
      throw liveImportFailure(vmid, err);
    },
  );
  if (rejoined) started = rejoined.startedMs;
  let waited = rejoined !== undefined;
  for (;;) {
    const found = await liveImportState(client, node, vmid, name, disks);
    if (found.kind === 'done') {
      // Found complete at once: an earlier run's; after waiting for an import, or on a retry, ours.
      const ours = waited || activityInfo().attempt > 1;
      return { created: ours, seconds: waited ? (Date.now() - started) / 1000 : 0, disks: found.disks };
    }
    if (found.kind === 'importing') {
      // An earlier attempt's live import still streams (its worker died): wait for it, do not start another.
      waited = true;
      beatProgress({ phase: 'live-import', elapsedMs: Date.now() - started });
      await sleep(2_000);
      continue;
    }
    if (found.kind === 'failed' && (waited || activityInfo().attempt > 1)) {
      // Only a fresh call (a person's retry) replaces a failed live import: the guest wrote to it.
      throw liveImportFailure(vmid, new ProxmoxTaskError(`(the live import of VM ${vmid})`, 'live-restore failed', []));
    }
    // The disk-less shell, or a failed live import a person chose to retry: it goes, the create replaces it.
    if (found.kind !== 'absent')
      await client.vms.delete(
        node,
        vmid,
        { skiplock: found.kind === 'failed' },
        { onProgress: beatTask('remove shell') },
      );
    waited = true; // from here on, what stands at the VMID is this call's
    const created = await createLive(client, spec, disks);
    if (created) return created;
  }
}

/**
 * The VM created from `spec` with live-restore, once PVE has streamed every disk in; undefined without a
 * task (the answer to the create was lost): the import may still run, so the caller looks again.
 */
async function createLive(
  client: ProxmoxClient,
  spec: MigratedVmSpec,
  disks: readonly ImportFromDiskSpec[],
): Promise<LiveImported | undefined> {
  try {
    const result = await client.vms.create(
      { ...spec, liveRestore: true },
      { onProgress: beatTask('live-import'), copyProgress: true, timeoutMs: DAY_MS },
    );
    if (!result.task) return undefined;
    return {
      created: true,
      seconds: result.task.durationMs / 1000,
      disks: diskVolumes((await client.config.get(spec.node, spec.vmid)).values, disks),
    };
  } catch (err) {
    throw liveImportFailure(spec.vmid, err);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A failed live import: the guest ran and wrote to the new disks, so starting over is for a person to decide. */
function liveImportFailure(vmid: number, err: unknown): unknown {
  if (!(err instanceof ProxmoxTaskError && /live-restore failed/.test(err.exitstatus))) return err;
  return new FerryError(
    `the live import of VM ${vmid} failed after the VM had started (${err.message.split('\n')[0]}); the VM is stopped and locked. ` +
      'Retry re-creates it from the NFS copies (what the guest wrote since the start is lost); rollback destroys it and powers the VMware VM on',
    'policy',
    { cause: err },
  );
}

function diskVolumes(config: Record<string, string>, disks: readonly ImportFromDiskSpec[]): LiveImported['disks'] {
  const attached = attachedDisks(config);
  return disks.map(({ slot }) => ({
    slot,
    volume: attached[slot]?.volume ?? '',
    bytes: attached[slot]?.sizeBytes ?? 0,
  }));
}

type LiveImportState =
  | { kind: 'absent' }
  | { kind: 'shell' }
  | { kind: 'importing' }
  | { kind: 'failed' }
  | { kind: 'done'; disks: LiveImported['disks'] };

/**
 * What stands at the VMID before and during a live import. Only ferry's own states are replaced: the
 * disk-less stopped shell and a failed live import (stopped, `lock: import`); anything else is refused.
 */
async function liveImportState(
  client: ProxmoxClient,
  node: string,
  vmid: number,
  name: string,
  wanted: readonly ImportFromDiskSpec[],
): Promise<LiveImportState> {
  let config;
  try {
    config = (await client.config.get(node, vmid)).values;
  } catch (err) {
    if (err instanceof ProxmoxNotFoundError) return { kind: 'absent' };
    throw err;
  }
  if (config.name !== name)
    throw new FerryError(`VM ${vmid} is '${String(config.name)}', not '${name}'; ferry does not replace it`, 'policy');
  const running = (await client.power.status(node, vmid)).status === 'running';
  if (config.lock === 'import') return running ? { kind: 'importing' } : { kind: 'failed' };
  const attached = attachedDisks(config);
  const slots = Object.keys(attached);
  if (slots.length === 0 && !running && config.lock === undefined) return { kind: 'shell' };
  const complete =
    config.lock === undefined && wanted.every((d) => attached[d.slot]?.volume.startsWith(`${d.storage}:`) === true);
  if (complete) return { kind: 'done', disks: diskVolumes(config, wanted) };
  const storages = [...new Set(wanted.map((d) => d.storage))].join(', ');
  throw new FerryError(
    `VM ${vmid} holds ${slots.join(', ') || 'no disks'}${config.lock ? ` (lock: ${String(config.lock)})` : ''}${running ? ', running' : ''}: neither ferry's disk-less shell nor a live import of ${wanted.map((d) => d.slot).join(', ')} to ${storages}; ferry does not replace it`,
    'policy',
  );
}
