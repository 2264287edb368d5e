import { activityInfo, cancellationSignal } from '@temporalio/activity';
import { durationToMs } from '../src/config/common';
import type { MigrationSettings } from '../src/domain/migration';
import { FerryError } from '../src/errors';
import type { ProxmoxClient } from '../src/proxmox';
import { parseDisk } from '../src/proxmox/disks';
import { clientsOf } from './clients';
import type { ActivityDeps } from './deps';
import { beat, beatWhile } from './heartbeat';
import type { ImportedDisk, MigrationActivities, PlanState, PveVmRef, WaveSelection } from './migration-contract';

const DISK_SLOT = /^(scsi|sata|ide|virtio)\d+$/;

/**
 * The migration activities: thin adapters from the workflows' calls to the vSphere and Proxmox clients.
 * Every one checks, then acts, on a stable identity (moid, VMID, slot, VNet id), so a retry or a rerun
 * does not do the work twice.
 */
export function createMigrationActivities(deps: ActivityDeps): MigrationActivities {
  const { vsphere, pve } = clientsOf(deps);
  /** The root@pam client for import-from and attach by path (PVE allows paths only for root). */
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
      const { vmid, name, machine, bios, sockets, cores, memory, ostype, scsihw, onboot, tags, description, ...extra } = params;
      const result = await pve().vms.create(
        {
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
        },
        { onProgress: beat },
      );
      return { created: result.created };
    },

    async waitVmVisible({ vmid }) {
      return { visible: (await pve().vms.list()).some((vm) => vm.vmid === vmid) };
    },

    async setNic({ node, vmid, slot, value }) {
      await pve().config.ensure(node, vmid, { [slot]: value });
    },

    async relocateVm({ moid, datastore }) {
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
      const current = await pve().disks.get(node, vmid, slot);
      if (current) {
        if (!current.volume.startsWith(`${storage}:`)) {
          throw new FerryError(`VM ${vmid} ${slot} holds ${current.volume}, not a disk on ${storage}; ferry does not overwrite it`, 'policy');
        }
        // On a retry the disk is most likely ours from the attempt whose answer was lost.
        return { slot, volume: current.volume, bytes: current.sizeBytes ?? 0, seconds: 0, alreadyPresent: activityInfo().attempt === 1 };
      }
      const client = source.startsWith('/') ? privileged(`importing ${source}`) : pve();
      const started = Date.now();
      const { disk, task } = await client.disks.import(node, vmid, slot, { storage, source }, { onProgress: beat, timeoutMs: 24 * 3600_000 });
      return {
        slot,
        volume: disk.volume,
        bytes: disk.sizeBytes ?? 0,
        seconds: (task?.durationMs ?? Date.now() - started) / 1000,
        alreadyPresent: false,
      };
    },

    async attachDisk({ node, vmid, slot, path }) {
      const client = privileged(`attaching ${path}`);
      const current = (await client.config.get(node, vmid)).values[slot];
      if (current !== undefined) {
        if (parseDisk(current).volume === path) return;
        throw new FerryError(`VM ${vmid} ${slot} already holds ${parseDisk(current).volume}, not ${path}`, 'policy');
      }
      await client.config.ensure(node, vmid, { [slot]: path });
    },

    async moveDisk({ node, vmid, slot, storage }) {
      // The source is VMware's own file: never delete it.
      const result = await pve().disks.move(node, vmid, slot, { storage, deleteSource: false }, { onProgress: beat, timeoutMs: 24 * 3600_000 });
      return { moved: result.changed };
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

    async detachDisks({ node, vmid, slots }) {
      for (const slot of slots) await pve().disks.detach(node, vmid, slot);
    },
  };
}
