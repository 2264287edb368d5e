import { activityInfo } from '@temporalio/activity';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beat, beatWhile } from '../heartbeat';
import type { PlanState, ProxmoxMigrationActivities } from '../migration-contract';
import { createdWithMark, runMarked } from '../run-mark';
import { writeIntent } from '../write-intent';

type ProxmoxActivities = Omit<ProxmoxMigrationActivities, 'importDisk' | 'liveImportVm' | 'attachDisk' | 'moveDisk'>;

/** Proxmox reads, SDN, the shell, NICs, boot order and power; disks coming in are in import-disk.ts, live-import.ts and overlay-disks.ts. */
export function createProxmoxMigrationActivities(deps: ActivityDeps): ProxmoxActivities {
  const { pve } = clientsOf(deps);
  return {
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
        // A retry applies again even with nothing to write: the attempt before may have committed the config
        // and then seen its network reload fail (src/proxmox/sdn.ts reloadFailed).
        { heldLock: 'take-over', onProgress: beat, reapply: activityInfo().attempt > 1 },
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
  };
}
