import { getClient } from '@temporalio/activity';
import { ApplicationFailure, WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { durationToMs } from '../src/config/common';
import {
  nicIndex,
  type NetboxVmRecord,
  type ProvisioningSettings,
  VMID_ALLOCATOR_KEY,
  VMID_RANGE_EXHAUSTED,
  VMID_READ_FAILED,
} from '../src/domain/provisioning';
import { FerryKind } from '../src/domain/search-attributes';
import { scopedLimitKey } from '../src/domain/task-queues';
import { FerryError } from '../src/errors';
import { ferryFields } from '../src/netbox/custom-fields';
import { normalizeMac, type Outcome } from '../src/netbox/client';
import { parseDiskSize } from '../src/proxmox/disks';
import { parseNic } from '../src/proxmox/nics';
import { allocateVmidUpdate, type VmidAllocatorWorkflow } from '../src/messages';
import { clientsOf } from './clients';
import { beat } from './heartbeat';
import type { ActivityDeps } from './deps';
import type { ProvisioningActivities, WriteOutcome } from './provisioning-contract';

/** The allocator's range is full: final until a person widens the range or frees VMIDs. */
class VmidRangeExhausted extends FerryError {}
/** The allocator could not read the VMIDs in use (Proxmox or NetBox unreachable): asking again can help. */
class VmidReadFailed extends FerryError {}

/** Bridges and VNets a NIC may attach to, as /nodes/{node}/network types them. */
const NIC_NETWORK_TYPES = new Set(['bridge', 'OVSBridge', 'vnet']);

function writeOutcome(outcome: Outcome): WriteOutcome {
  return outcome === 'created' || outcome === 'updated' ? outcome : 'unchanged';
}

/**
 * The provisioning activities: thin adapters from the workflows' calls to the Proxmox, NetBox and DNS
 * clients. Each checks, then acts, on a stable identity (VMID, slot, NetBox id, interface name), so a
 * retry or a rerun finds its earlier work instead of doing it twice.
 */
export function createProvisioningActivities(deps: ActivityDeps): ProvisioningActivities {
  const { pve, netbox, dns } = clientsOf(deps);
  return {
    async loadProvisioningSettings(): Promise<ProvisioningSettings> {
      return provisioningSettings(deps);
    },

    async readNetboxVm({ netboxId }): Promise<NetboxVmRecord> {
      const { value: vm } = await netbox().getVirtualMachine(netboxId);
      return {
        id: vm.id,
        name: vm.name,
        status: vm.status.value,
        ...(vm.cluster?.name ? { cluster: vm.cluster.name } : {}),
        ...(typeof vm.vcpus === 'number' ? { vcpus: vm.vcpus } : {}),
        ...(typeof vm.memory === 'number' ? { memoryMB: vm.memory } : {}),
        ...(typeof vm.disk === 'number' ? { diskMB: vm.disk } : {}),
        tags: vm.tags.map((t) => t.slug),
        fields: ferryFields(vm),
      };
    },

    async listPlannedVms({ cluster, tag }) {
      const vms = await netbox().listVirtualMachines({ status: 'planned', cluster, tag });
      return vms.map((vm) => ({ netboxId: vm.id, name: vm.name })).sort((a, b) => a.netboxId - b.netboxId);
    },

    async requestVmid({ request, taskQueue }) {
      const workflowId = scopedLimitKey(taskQueue, VMID_ALLOCATOR_KEY);
      try {
        const vmid = await getClient().workflow.executeUpdateWithStart(allocateVmidUpdate, {
          args: [request],
          startWorkflowOperation: new WithStartWorkflowOperation<VmidAllocatorWorkflow>('vmidAllocator', {
            workflowId,
            taskQueue,
            args: [{}],
            workflowIdConflictPolicy: 'USE_EXISTING',
            typedSearchAttributes: [{ key: FerryKind, value: 'vmid-allocator' }],
            staticSummary: 'hands out VMIDs to records that have none (one writer)',
          }),
        });
        return { vmid };
      } catch (err) {
        if (err instanceof WorkflowUpdateFailedError) {
          const type = err.cause instanceof ApplicationFailure ? err.cause.type : undefined;
          const message = `the VMID allocator ${workflowId} refused: ${err.cause?.message ?? err.message}`;
          if (type === VMID_READ_FAILED) throw new VmidReadFailed(message, 'transient', { cause: err });
          if (type === VMID_RANGE_EXHAUSTED) throw new VmidRangeExhausted(message, 'policy', { cause: err });
          throw new FerryError(message, 'invalid', { cause: err }); // the request failed the allocator's validation
        }
        throw err;
      }
    },

    async usedVmids({ range }) {
      const inRange = (vmid: number) => vmid >= range.min && vmid <= range.max;
      const proxmox = (await pve().vms.usedVmids()).filter(inRange);
      const records = deps.netbox ? await netbox().usedVmids(range) : [];
      return [...new Set([...proxmox, ...records])].sort((a, b) => a - b);
    },

    async recordVmid({ netboxId, vmid }) {
      const current = await netbox().getVirtualMachine(netboxId);
      const held = ferryFields(current.value).vmid;
      if (held !== undefined) return { vmid: held, outcome: 'unchanged' };
      await netbox().updateVirtualMachine(netboxId, { custom_fields: { ferry_vmid: vmid } }, { ifMatch: current.etag });
      return { vmid, outcome: 'updated' };
    },

    async preflightVm({ node, storages, networks, iso }) {
      const client = pve();
      const problems: string[] = [];
      const nodes = await client.nodes.list();
      const found = nodes.find((n) => n.node === node);
      if (!found) return { problems: [`node ${node} is not in the cluster (nodes: ${nodes.map((n) => n.node).join(', ')})`] };
      if (found.status !== 'online') return { problems: [`node ${node} is ${found.status}, not online`] };

      const available = await client.nodes.storages(node);
      const storageProblem = (id: string, content: string): string | undefined => {
        const s = available.find((x) => x.storage === id);
        if (!s || !s.enabled) return `storage ${id} is not available on ${node} (it has ${available.map((x) => x.storage).join(', ')})`;
        if (!s.active) return `storage ${id} on ${node} is not active`;
        if (!s.content.includes(content)) return `storage ${id} on ${node} does not hold ${content} (content: ${s.content.join(', ')})`;
        return undefined;
      };
      for (const id of storages) {
        const problem = storageProblem(id, 'images');
        if (problem) problems.push(problem);
      }

      if (networks.length > 0) {
        const [ifaces, vnets] = await Promise.all([client.nodes.networks(node), client.sdn.vnets()]);
        for (const net of networks) {
          const ok = ifaces.some((i) => i.iface === net && NIC_NETWORK_TYPES.has(i.type)) || vnets.some((v) => v.vnet === net);
          if (!ok) problems.push(`network ${net} is neither a bridge on ${node} nor an SDN VNet`);
        }
      }

      if (iso) {
        const isoStorage = iso.split(':')[0]!;
        const problem = storageProblem(isoStorage, 'iso');
        if (problem) problems.push(`ISO ${iso}: ${problem}`);
        else if (!(await client.storage.find(node, iso, 'iso'))) problems.push(`ISO ${iso} is not in storage ${isoStorage} on ${node}`);
      }
      return { problems };
    },

    async createBareVm(vm) {
      const { created } = await pve().vms.create(vm, { onProgress: beat });
      return { created };
    },

    async ensureVmAcl({ vmid, roles, users, groups }) {
      return pve().acl.ensure({ path: `/vms/${vmid}`, roles, users, groups, propagate: true });
    },

    async ensureVmDisk({ node, vmid, disk }) {
      const client = pve();
      const before = await client.disks.get(node, vmid, disk.slot);
      if (before && !before.volume.startsWith(`${disk.storage}:`)) {
        throw new FerryError(`VM ${vmid} ${disk.slot} holds ${before.volume}, not a disk on ${disk.storage}; ferry does not move or replace disks`, 'policy');
      }
      const { action } = await client.disks.ensure(node, vmid, disk.slot, { storage: disk.storage, sizeGiB: disk.sizeGiB, options: disk.options }, { onProgress: beat });
      const wanted = parseDiskSize(`${disk.sizeGiB}G`);
      const now = await client.disks.get(node, vmid, disk.slot);
      let grown = false;
      if (now?.sizeBytes !== undefined && now.sizeBytes < wanted) {
        grown = (await client.disks.resize(node, vmid, disk.slot, `${disk.sizeGiB}G`, { onProgress: beat })).changed;
      }
      if (action === 'created') return { outcome: 'created' };
      return { outcome: action === 'updated' || grown ? 'updated' : 'unchanged' };
    },

    async ensureVmNic({ node, vmid, nic }) {
      const client = pve();
      const existed = (await client.nics.list(node, vmid))[nic.slot] !== undefined;
      const { changed } = await client.nics.set(node, vmid, nicIndex(nic.slot), {
        model: nic.model,
        bridge: nic.network,
        ...(nic.vlan !== undefined ? { tag: nic.vlan } : {}),
        ...(nic.firewall !== undefined ? { firewall: nic.firewall } : {}),
        ...(nic.mac ? { macaddr: nic.mac } : {}),
      });
      return { outcome: !changed ? 'unchanged' : existed ? 'updated' : 'created' };
    },

    async ensureVmOptions({ node, vmid, options }) {
      return pve().config.ensure(node, vmid, options);
    },

    async readVmMacs({ node, vmid }) {
      const { values } = await pve().config.get(node, vmid);
      return Object.fromEntries(
        Object.entries(values)
          .filter(([key]) => /^net\d+$/.test(key))
          .map(([key, value]) => [key, normalizeMac(parseNic(value).macaddr)]),
      );
    },

    async ensureNetboxInterface({ netboxId, name, mac }) {
      const iface = await netbox().ensureInterface(netboxId, name, { enabled: true });
      const primary = await netbox().ensurePrimaryMac(iface.value.id, mac);
      return { interfaceId: iface.value.id, interface: writeOutcome(iface.outcome), mac: writeOutcome(primary.outcome) };
    },

    async assignNetboxIp({ netboxId, interfaceId, prefix, dnsName }) {
      const client = netbox();
      const found = await client.getPrefix(prefix);
      const ip = await client.allocateIp(found, interfaceId, { ...(dnsName ? { dnsName } : {}), description: 'allocated by ferry' });
      const primary = await client.setPrimaryIp4(netboxId, ip.value.id);
      return { address: ip.value.address, ipId: ip.value.id, outcome: writeOutcome(ip.outcome), primary: writeOutcome(primary) };
    },

    async ensureDnsRecord({ type, name, address }) {
      const outcome = type === 'A' ? await dns().ensureA(name, address) : await dns().ensurePtr(address, name);
      return { outcome: outcome === 'created' ? 'created' : 'unchanged' };
    },

    async markNetboxStaged({ netboxId }) {
      const { outcome } = await netbox().transitionStatus(netboxId, 'planned', 'staged');
      return { outcome: writeOutcome(outcome) };
    },

    async vmPowerState({ node, vmid }) {
      const vm = await pve().vms.findById(vmid);
      if (!vm || vm.node !== node) return { status: 'absent' };
      return { status: (await pve().power.status(node, vmid)).status };
    },
  };
}

/** ferry.yaml `provisioning` (+ the endpoints this worker has) as the workflows take it. */
export function provisioningSettings(deps: ActivityDeps): ProvisioningSettings {
  const p = deps.config.provisioning;
  if (!p) {
    throw new FerryError('ferry.yaml has no provisioning: section (node, storage, network, prefix, dnsZone, teardown, …; see ferry.example.yaml)', 'invalid');
  }
  return {
    defaults: {
      node: p.node,
      storage: p.storage,
      ...(p.efiStorage ? { efiStorage: p.efiStorage } : {}),
      network: p.network,
      ...(p.prefix ? { prefix: p.prefix } : {}),
      ...(p.dnsZone ? { dnsZone: p.dnsZone } : {}),
      ostype: p.ostype,
      nicModel: p.nicModel,
      tags: p.tags,
      extras: p.extras,
      start: p.start,
    },
    vmidRange: p.vmidRange,
    ...(p.acl ? { acl: p.acl } : {}),
    approvers: p.approvers,
    maxConcurrent: p.maxConcurrent,
    heartbeatTimeoutMs: durationToMs(p.heartbeatTimeout),
    retry: { initialIntervalMs: durationToMs(p.retry.initialInterval), maximumIntervalMs: durationToMs(p.retry.maximumInterval) },
    pollIntervalMs: durationToMs(p.pollInterval),
    vmStartPermits: deps.config.limits.vmStart,
    teardown: {
      approvalFor: p.teardown.approvalFor,
      ...(p.teardown.approvalDeadline !== undefined ? { approvalDeadlineMs: durationToMs(p.teardown.approvalDeadline) } : {}),
      netbox: p.teardown.netbox,
      shutdownTimeoutMs: durationToMs(p.teardown.shutdownTimeout),
      knownHosts: p.teardown.knownHosts,
      cleanupAttempts: p.teardown.cleanupAttempts,
    },
    has: { netbox: Boolean(deps.netbox), dns: Boolean(deps.dns), knownHosts: Boolean(deps.config.knownHosts) },
    ...(deps.config.netbox?.name ? { netboxName: deps.config.netbox.name } : {}),
  };
}

