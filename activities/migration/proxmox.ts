import { FerryError } from '../../src/errors';
import { attachedDisks, ProxmoxNotFoundError } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beat, beatWhile } from '../heartbeat';
import type { PlanState, ProxmoxMigrationActivities, PveVmRef } from '../migration-contract';
import { createdWithMark, runMarked } from '../run-mark';
import { writeIntent } from '../write-intent';
import { privilegedClient } from './privileged';

type ProxmoxActivities = Omit<ProxmoxMigrationActivities, 'importDisk' | 'liveImportVm' | 'attachDisk' | 'moveDisk'>;

/** Proxmox reads, SDN, the shell, NICs, boot order and power; disks coming in (imports, overlays, moves) are in disk-imports.ts. */
export function createProxmoxMigrationActivities(deps: ActivityDeps): ProxmoxActivities {
  const { pve } = clientsOf(deps);
  return {
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
          vnets: vnets
            .filter((v) => v.create && v.tag !== undefined)
            .map((v) => ({ vnet: v.id, zone, tag: v.tag, alias: v.alias })),
        },
        // All of ferry's SDN writes go through its single `sdn` permit, so a lock left by a lost answer is ours.
        { heldLock: 'take-over', onProgress: beat },
      );
      return { created: changes.created, applied: changes.applied };
    },

    async createVmShell({ spec }) {
      // A VM found there that this run created, its answer lost (a dropped connection, a killed worker),
      // is reported as created: the write intent says so, or else the run's mark in its description.
      const intent = writeIntent();
      const { description, mark } = runMarked(spec.description);
      intent.start('create-vm');
      const result = await pve().vms.create({ ...spec, description }, { onProgress: intent.beat });
      if (result.created || intent.startedEarlier('create-vm')) return { created: true };
      return { created: await createdWithMark(pve(), spec.node, spec.vmid, mark) };
    },

    async waitVmVisible({ vmid }) {
      return { visible: (await pve().vms.list()).some((vm) => vm.vmid === vmid) };
    },

    async setNic({ node, vmid, slot, nic }) {
      await pve().nics.ensure(node, vmid, slot, nic);
    },

    async diskSizes({ node, vmid }) {
      const disks = attachedDisks((await pve().config.get(node, vmid)).values);
      return Object.fromEntries(Object.entries(disks).map(([slot, disk]) => [slot, disk.sizeBytes ?? -1]));
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
      let config;
      try {
        config = (await pve().config.get(node, vmid)).values;
      } catch (err) {
        if (err instanceof ProxmoxNotFoundError) return { destroyed: false };
        throw err;
      }
      if (config.name !== name)
        throw new FerryError(
          `VM ${vmid} is '${String(config.name)}', not '${name}'; ferry does not destroy it`,
          'policy',
        );
      // The token stops and destroys the VM, disks attached by path and all (PVE asks VM.PowerMgmt and
      // VM.Allocate; destroy frees only the VM's own volumes). Only a VM still locked (a failed live
      // import keeps `lock: import`) needs skiplock, which is root@pam's.
      const locked = config.lock !== undefined;
      const client = locked
        ? privilegedClient(deps, `discarding VM ${vmid} (locked: ${String(config.lock)})`, 'skiplock')
        : pve();
      const skiplock = locked ? { skiplock: true } : {};
      await client.power.stop(node, vmid, { onProgress: beat }, skiplock);
      const result = await client.vms.delete(node, vmid, skiplock, { onProgress: beat });
      return { destroyed: result.deleted };
    },
  };
}
