import { activityInfo, cancellationSignal } from '@temporalio/activity';
import { durationToMs } from '../src/config/common';
import type { MigrationSettings } from '../src/domain/migration';
import { FerryError } from '../src/errors';
import { ProxmoxNotFoundError, ProxmoxTaskError, type ProxmoxClient, type VmShellSpec } from '../src/proxmox';
import { isUpid, parseUpid } from '../src/proxmox/upid';
import { parseDisk } from '../src/proxmox/disks';
import { VsphereFault } from '../src/vsphere';
import { clientsOf } from './clients';
import type { ActivityDeps } from './deps';
import { beat, beatWhile } from './heartbeat';
import type { ImportedDisk, LiveImported, MigrationActivities, PlanState, PveVmRef, WaveSelection } from './migration-contract';

const DISK_SLOT = /^(scsi|sata|ide|virtio)\d+$/;

/**
 * The migration activities: thin adapters from the workflows' calls to the vSphere and Proxmox clients.
 * Every one checks, then acts, on a stable identity (moid, VMID, slot, VNet id), so a retry or a rerun
 * does not do the work twice.
 */
export function createMigrationActivities(deps: ActivityDeps): MigrationActivities {
  const { vsphere, pve } = clientsOf(deps);
  /** The root@pam client for import-from by path and live import (PVE allows paths only for root). */
  const privileged = (what: string): ProxmoxClient => {
    if (!deps.proxmoxPrivileged) {
      throw new FerryError(
        `${what} needs a file path, which Proxmox accepts only from ${deps.config.proxmox?.privilegedUser ?? 'root@pam'}: set PROXMOX_PRIVILEGED_PASSWORD for the worker (or export the datastore as the storage's import/ folder)`,
        'policy',
      );
    }
    return deps.proxmoxPrivileged;
  };

  /** The vCenter's name in workflow ids and records (vsphere.name, else its host). */
  const vcenterName = () => vsphere().config.name ?? vsphere().config.host;

  return {
    async loadMigrationSettings(): Promise<MigrationSettings> {
      const m = deps.config.migration;
      if (!m) throw new FerryError('ferry.yaml has no migration: section (vmidBase, node, targetStorage, datastores, approvers, …)', 'invalid');
      return {
        vcenter: vcenterName(),
        node: m.node,
        targetStorage: m.targetStorage,
        migrationDatastore: m.migrationDatastore,
        datastores: m.datastores,
        rules: {
          vmidBase: m.vmidBase,
          network: m.network,
          nicModel: m.nicModel,
          diskBus: m.diskBus,
          efiStorage: m.efiStorage ?? m.targetStorage,
        },
        approvers: m.approvers,
        relocateTimeoutMs: durationToMs(m.relocateTimeout),
        heartbeatTimeoutMs: durationToMs(m.heartbeatTimeout),
        cutover: {
          mode: m.cutover.mode,
          shutdownTimeoutMs: durationToMs(m.cutover.shutdownTimeout),
          forcePowerOff: m.cutover.forcePowerOff,
          startAfter: m.cutover.startAfter,
          ...(m.cutover.approvalDeadline !== undefined ? { approvalDeadlineMs: durationToMs(m.cutover.approvalDeadline) } : {}),
          importTimeoutMs: durationToMs(m.cutover.importTimeout),
        },
        limits: deps.config.limits,
      };
    },

    async discoverWave(selection: WaveSelection) {
      const { inventory } = await beatWhile('discovery', vsphere().discover());
      const tagged = selection.tag ? new Set(await beatWhile('tagged VMs', vsphere().vmsTagged(selection.tag))) : undefined;
      const vms = inventory.vms.filter(
        (vm) =>
          (!tagged || tagged.has(vm.moid)) &&
          (!selection.names || selection.names.includes(vm.name)) &&
          (!selection.folder || vm.folder === selection.folder || vm.folder?.startsWith(`${selection.folder}/`)) &&
          (!selection.cluster || vm.cluster?.name === selection.cluster),
      );
      const missing = (selection.names ?? []).filter((name) => !vms.some((vm) => vm.name === name));
      if (missing.length > 0) throw new FerryError(`not found in vCenter ${inventory.vcenter}: ${missing.join(', ')}`, 'invalid');
      if (vms.length === 0) throw new FerryError(`the selection ${JSON.stringify(selection)} matches no VM in vCenter ${inventory.vcenter}`, 'invalid');
      return {
        vcenter: vcenterName(),
        vms,
        portgroups: inventory.portgroups,
        datastoresByVm: Object.fromEntries(vms.map((vm) => [vm.moid, vm.datastores ?? []])),
      };
    },

    async readVmForMigration({ moid }) {
      const { inventory } = await vsphere().discover();
      const vm = inventory.vms.find((v) => v.moid === moid);
      if (!vm) throw new FerryError(`VM ${moid} is not in vCenter ${inventory.vcenter} (within the discovery scope)`, 'not-found');
      const keys = new Set(vm.nics.flatMap((n) => (n.backing.kind === 'dvportgroup' ? [n.backing.portgroupKey] : [])));
      return {
        vcenter: vcenterName(),
        vm,
        portgroups: inventory.portgroups.filter((pg) => keys.has(pg.key)),
        datastores: vm.datastores ?? [],
      };
    },

    async rereadVm({ moid }) {
      return vsphere().readVm(moid);
    },

    async findPveVms({ vmid, name }): Promise<PveVmRef[]> {
      // Each node's own list too: /cluster/resources lags behind a fresh create.
      const found = (await pve().vms.listEverywhere()).filter((vm) => vm.vmid === vmid || vm.name === name);
      return found.map((vm) => ({ vmid: vm.vmid, name: vm.name, node: vm.node, status: vm.status }));
    },

    async readPveConfig({ node, vmid }) {
      return (await pve().config.get(node, vmid)).values;
    },

    async readPlanState({ vms }): Promise<PlanState> {
      const client = pve();
      const all = await beatWhile('Proxmox VMs', client.vms.list());
      const wanted = new Set(vms.map((v) => v.vmid));
      const names = new Set(vms.map((v) => v.name));
      const existing = all.filter((vm) => wanted.has(vm.vmid) || (vm.name !== undefined && names.has(vm.name)));
      const configs: PlanState['configs'] = {};
      for (const vm of existing.filter((e) => wanted.has(e.vmid))) {
        beat({ reading: `config of VM ${vm.vmid}` });
        configs[vm.vmid] = (await client.config.get(vm.node, vm.vmid)).values;
      }
      const [zones, vnets] = await Promise.all([client.sdn.zones(), client.sdn.vnets()]);
      return {
        existing: existing.map((vm) => ({ vmid: vm.vmid, name: vm.name, node: vm.node, status: vm.status })),
        configs,
        sdn: { zones: zones.map((z) => z.zone), vnets: vnets.map((v) => v.vnet) },
      };
    },

    async readSdnState() {
      const [zones, vnets] = await Promise.all([pve().sdn.zones(), pve().sdn.vnets()]);
      return { zones: zones.map((z) => z.zone), vnets: vnets.map((v) => v.vnet) };
    },

    async ensureSdn({ zone, bridge, vnets }) {
      const changes = await pve().sdn.ensure(
        {
          zones: [{ zone, type: 'vlan', bridge }],
          vnets: vnets.filter((v) => v.create && v.tag !== undefined).map((v) => ({ vnet: v.id, zone, tag: v.tag, alias: v.alias })),
        },
        // All of ferry's SDN writes go through its single `sdn` permit, so a lock left by a lost answer is ours.
        { heldLock: 'take-over', onProgress: beat },
      );
      return { created: changes.created, applied: changes.applied };
    },

    async createVmShell({ node, params }) {
      const result = await pve().vms.create(shellSpec(node, params), { onProgress: beat });
      return { created: result.created };
    },

    async waitVmVisible({ vmid }) {
      return { visible: (await pve().vms.list()).some((vm) => vm.vmid === vmid) };
    },

    async setNic({ node, vmid, slot, value }) {
      await pve().config.ensure(node, vmid, { [slot]: value });
    },

    async relocateVm({ moid, datastore }) {
      // A retry after the worker died: wait for the vMotion it started (vCenter would refuse a second one),
      // known by its heartbeat or, if it died before its first heartbeat got out, found on the VM.
      const earlier = earlierRelocation() ?? (activityInfo().attempt > 1 ? (await vsphere().runningRelocations(moid))[0]?.task : undefined);
      if (earlier) {
        try {
          await vsphere().waitForRelocation(moid, earlier, { onProgress: beat, signal: cancellationSignal() });
          return { moved: true };
        } catch (err) {
          // That task failed or is forgotten: say so in the heartbeat (so it is not rejoined again) and start afresh.
          if (!(err instanceof VsphereFault)) throw err;
          beat({ step: 'relocate', earlierTask: earlier, earlierError: err.message });
        }
      }
      const result = await vsphere().relocateVmStorage(moid, datastore, { onProgress: beat, signal: cancellationSignal() });
      return { moved: result.moved };
    },

    async shutdownGuest({ moid, timeoutMs, force }) {
      const result = await vsphere().shutdownGuest(moid, { timeoutMs, force, onProgress: beat, signal: cancellationSignal() });
      const map = { 'already-off': 'already-off', 'guest-shutdown': 'shut-down', 'powered-off': 'powered-off' } as const;
      return { result: map[result.outcome] };
    },

    async powerOnVm({ moid }) {
      const result = await vsphere().powerOn(moid, { onProgress: beat, signal: cancellationSignal() });
      return { result: result.outcome };
    },

    async importDisk({ node, vmid, slot, source, storage }): Promise<ImportedDisk> {
      const client = () => (source.startsWith('/') ? privileged(`importing ${source}`) : pve());
      // A retry after the worker died: wait for the import it started instead of asking for a second one.
      const rejoined = await rejoinProxmoxTask(client, { node, vmid, type: 'qmconfig' });
      const current = await pve().disks.get(node, vmid, slot);
      if (current) {
        if (!current.volume.startsWith(`${storage}:`)) {
          throw new FerryError(`VM ${vmid} ${slot} holds ${current.volume}, not a disk on ${storage}; ferry does not overwrite it`, 'policy');
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
      const { disk, task } = await client().disks.import(node, vmid, slot, { storage, source }, { onProgress: beat, timeoutMs: 24 * 3600_000 });
      return {
        slot,
        volume: disk.volume,
        bytes: disk.sizeBytes ?? 0,
        seconds: (task?.durationMs ?? Date.now() - started) / 1000,
        alreadyPresent: false,
      };
    },

    async liveImportVm({ node, vmid, name, params, slots, storage }): Promise<LiveImported> {
      const paths = slots.map((slot) => String(params[slot]).split('import-from=')[1] ?? '').filter((source) => source.startsWith('/'));
      const client = paths.length > 0 ? privileged(`live import from ${paths[0]}`) : pve();
      let started = Date.now();
      // A retry after the worker died: wait for the live import it started (its create task).
      const rejoined = await rejoinProxmoxTask(() => client, { node, vmid, type: 'qmcreate' }, /live-restore failed/).catch((err: unknown) => {
        throw liveImportFailure(vmid, err);
      });
      if (rejoined) started = rejoined.startedMs;
      let waited = rejoined !== undefined;
      const { 'live-restore': _live, ...rest } = params;
      for (;;) {
        const found = await liveImportState(client, node, vmid, name, slots, storage);
        if (found.kind === 'done') {
          // Found complete at once: an earlier run's; after waiting for an import, or on a retry, ours.
          const ours = waited || activityInfo().attempt > 1;
          return { created: ours, seconds: waited ? (Date.now() - started) / 1000 : 0, disks: found.disks };
        }
        if (found.kind === 'importing') {
          // An earlier attempt's live import still streams (its worker died): wait for it, do not start another.
          waited = true;
          beat({ type: 'qmcreate', upid: `(the live import of VM ${vmid} already running)`, elapsedMs: Date.now() - started, running: true });
          await sleep(2_000);
          continue;
        }
        if (found.kind === 'failed' && (waited || activityInfo().attempt > 1)) {
          // Only a fresh call (a person's retry) replaces a failed live import: the guest wrote to it.
          throw liveImportFailure(vmid, new ProxmoxTaskError(`(the live import of VM ${vmid})`, 'live-restore failed', []));
        }
        // The disk-less shell, or a failed live import a person chose to retry: it goes, the create replaces it.
        if (found.kind !== 'absent') await client.vms.delete(node, vmid, { skiplock: found.kind === 'failed' }, { onProgress: beat });
        waited = true; // from here on, what stands at the VMID is this call's
        try {
          const result = await client.vms.create({ ...shellSpec(node, rest), liveRestore: true }, { onProgress: beat, timeoutMs: 24 * 3600_000 });
          // Without a task (the answer to the create was lost) the import may still run: look again.
          if (!result.task) continue;
          const disks = diskVolumes((await client.config.get(node, vmid)).values, slots);
          return { created: true, seconds: result.task.durationMs / 1000, disks };
        } catch (err) {
          throw liveImportFailure(vmid, err);
        }
      }
    },

    async diskSizes({ node, vmid }) {
      const values = (await pve().config.get(node, vmid)).values;
      return Object.fromEntries(
        Object.entries(values)
          .filter(([key]) => DISK_SLOT.test(key))
          .map(([key, value]) => [key, parseDisk(value).sizeBytes ?? -1]),
      );
    },

    async setBootOrder({ node, vmid, order }) {
      await pve().config.ensure(node, vmid, { boot: order });
    },

    async startVm({ node, vmid }) {
      await pve().power.start(node, vmid, { onProgress: beat });
    },

    async stopVm({ node, vmid }) {
      await pve().power.stop(node, vmid, { onProgress: beat });
    },

    async removeDisks({ node, vmid, slots }) {
      for (const slot of slots) await pve().disks.delete(node, vmid, slot);
    },

    async discardVm({ node, vmid, name }) {
      const client = privileged(`discarding VM ${vmid} (it may be locked by its live import)`);
      let config;
      try {
        config = (await client.config.get(node, vmid)).values;
      } catch (err) {
        if (err instanceof ProxmoxNotFoundError) return { destroyed: false };
        throw err;
      }
      if (config.name !== name) throw new FerryError(`VM ${vmid} is '${String(config.name)}', not '${name}'; ferry does not destroy it`, 'policy');
      await client.power.stop(node, vmid, { onProgress: beat }, { skiplock: true });
      const result = await client.vms.delete(node, vmid, { skiplock: true }, { onProgress: beat });
      return { destroyed: result.deleted };
    },
  };
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

/** What the last attempt heartbeated (its progress), when this is a retry. */
function earlierProgress(): Record<string, unknown> | undefined {
  const details: unknown = activityInfo().heartbeatDetails;
  return details !== null && typeof details === 'object' ? (details as Record<string, unknown>) : undefined;
}

/** The RelocateVM_Task an earlier attempt was waiting for. */
function earlierRelocation(): string | undefined {
  const details = earlierProgress();
  return details?.step === 'relocate' && typeof details.task === 'string' ? details.task : undefined;
}

/**
 * Waits for the Proxmox task an earlier attempt of this activity started, so a retry after a worker died
 * joins the running import instead of colliding with its lock. The task is the one the attempt
 * heartbeated (its UPID) or, on a retry without one (the worker died before its first heartbeat got
 * out), a task of `type` running on the VM. Returns when it ended OK; when it failed or is unknown it is
 * noted in the heartbeat (not rejoined again) and the caller starts afresh, unless `fatal` matches its
 * exit status (then its error is thrown).
 */
async function rejoinProxmoxTask(
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
    await client().waitForTask(upid, { onProgress: beat, timeoutMs: 24 * 3600_000 });
    return { startedMs: parseUpid(upid).starttime * 1000 };
  } catch (err) {
    if (!(err instanceof ProxmoxTaskError || err instanceof ProxmoxNotFoundError)) throw err;
    if (fatal && err instanceof ProxmoxTaskError && fatal.test(err.exitstatus)) throw err;
    beat({ earlierTask: upid, earlierError: err.message.split('\n')[0] });
    return undefined;
  }
}

/** The shell's creation parameters as the client's typed spec; the rest (disks, NICs, boot, …) passed as they are. */
function shellSpec(node: string, params: Record<string, string | number>): VmShellSpec {
  const { vmid, name, machine, bios, sockets, cores, memory, ostype, scsihw, onboot, tags, description, ...extra } = params;
  return {
    node,
    vmid: Number(vmid),
    name: String(name),
    machine: String(machine),
    bios: bios === 'ovmf' ? 'ovmf' : 'seabios',
    sockets: Number(sockets),
    cores: Number(cores),
    memory: Number(memory),
    ostype: String(ostype),
    scsihw: String(scsihw),
    onboot: Number(onboot) === 1,
    tags: String(tags ?? '').split(';').filter(Boolean),
    description: description === undefined ? undefined : String(description),
    extra,
  };
}

function diskVolumes(config: Record<string, string | number>, slots: string[]): LiveImported['disks'] {
  return slots.map((slot) => {
    const disk = parseDisk(String(config[slot]));
    return { slot, volume: disk.volume, bytes: disk.sizeBytes ?? 0 };
  });
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
async function liveImportState(client: ProxmoxClient, node: string, vmid: number, name: string, slots: string[], storage: string): Promise<LiveImportState> {
  let config;
  try {
    config = (await client.config.get(node, vmid)).values;
  } catch (err) {
    if (err instanceof ProxmoxNotFoundError) return { kind: 'absent' };
    throw err;
  }
  if (config.name !== name) throw new FerryError(`VM ${vmid} is '${String(config.name)}', not '${name}'; ferry does not replace it`, 'policy');
  const running = (await client.power.status(node, vmid)).status === 'running';
  if (config.lock === 'import') return running ? { kind: 'importing' } : { kind: 'failed' };
  const disks = Object.keys(config).filter((key) => DISK_SLOT.test(key));
  if (disks.length === 0 && !running && config.lock === undefined) return { kind: 'shell' };
  const complete = config.lock === undefined && slots.every((slot) => typeof config[slot] === 'string' && parseDisk(String(config[slot])).volume.startsWith(`${storage}:`));
  if (complete) return { kind: 'done', disks: diskVolumes(config, slots) };
  throw new FerryError(
    `VM ${vmid} holds ${disks.join(', ') || 'no disks'}${config.lock ? ` (lock: ${String(config.lock)})` : ''}${running ? ', running' : ''}: neither ferry's disk-less shell nor a live import of ${slots.join(', ')} to ${storage}; ferry does not replace it`,
    'policy',
  );
}
