import { changeSettings } from '../../src/config/change-settings';
import {
  configAndPending,
  driftReportOf,
  planFromRecord,
  recordSideOf,
  vmDriftOf,
  type StorageFacts,
  type UnreadableVm,
  type VmDrift,
  type VmReality,
} from '../../src/domain/change';
import type { NetboxVmRecord } from '../../src/domain/provisioning';
import { vmRecordWithHardware } from '../../src/netbox/records';
import type { VirtualMachine } from '../../src/netbox/schemas';
import type { ProxmoxClient, VmSummary } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { DriftActivities } from '../drift-contract';
import { beat } from '../heartbeat';
import { mapBounded } from './bounded';

/** Proxmox reads in flight at once: a large cluster is read quickly without crowding the API. */
export const PVE_READS_AT_ONCE = 8;

/** A VM ferry built, as NetBox has it: its record with hardware and baseline, or why it cannot be read. */
type NetboxSide =
  | { netboxId: number; name: string; vmid: number; record: NetboxVmRecord; baseline: unknown }
  | { netboxId: number; name: string; vmid?: number; problem: string };

export function createDriftActivities(deps: ActivityDeps): DriftActivities {
  const { netbox, pve } = clientsOf(deps);
  return {
    async readDriftReport({ cluster, tag }) {
      const settings = changeSettings(deps.config, { netbox: Boolean(deps.netbox), dns: Boolean(deps.dns) });
      const sides = await readNetboxSide(netbox(), cluster, tag);
      const unreadable: UnreadableVm[] = [];
      const readable = sides.flatMap((s) => ('problem' in s ? (unreadable.push(unreadableOf(s)), []) : [s]));
      const realities = await readRealities(pve(), readable);
      const vms: VmDrift[] = [];
      readable.forEach((side, i) => {
        const reality = realities[i]!;
        if ('problem' in reality) return void unreadable.push({ ...idsOf(side), reason: reality.problem });
        const planned = planFromRecord(recordSideOf(side.record, side.baseline), reality, settings);
        vms.push(vmDriftOf(idsOf(side), planned));
      });
      unreadable.sort((a, b) => a.netboxId - b.netboxId);
      return driftReportOf({ cluster, ...(tag ? { tag } : {}), read: vms.length, unreadable }, vms);
    },
  };
}

const idsOf = (s: { netboxId: number; name: string; vmid: number }) => ({
  netboxId: s.netboxId,
  name: s.name,
  vmid: s.vmid,
});

const unreadableOf = (s: { netboxId: number; name: string; vmid?: number; problem: string }): UnreadableVm => ({
  netboxId: s.netboxId,
  name: s.name,
  ...(s.vmid !== undefined ? { vmid: s.vmid } : {}),
  reason: s.problem,
});

/**
 * NetBox in pages: the cluster's built VMs (whole records, baseline included), every interface of the
 * cluster, and the VMs' virtual disks in chunks of ids. About 3 + N/200 requests for N VMs.
 */
async function readNetboxSide(
  nb: ReturnType<ReturnType<typeof clientsOf>['netbox']>,
  cluster: string,
  tag: string | undefined,
): Promise<NetboxSide[]> {
  const vms = await nb.listBuiltVmRecords({ cluster, ...(tag ? { tag } : {}) });
  beat({ phase: `NetBox: ${vms.length} VM(s) of ${cluster}` });
  const [interfaces, disks] = await Promise.all([
    nb.interfacesOfCluster(cluster),
    nb.virtualDisksOfVms(vms.map((vm) => vm.id)),
  ]);
  return vms
    .sort((a, b) => a.id - b.id)
    .map((vm) => netboxSideOf(vm, () => vmRecordWithHardware(vm, interfaces, disks)));
}

function netboxSideOf(vm: VirtualMachine, record: () => NetboxVmRecord): NetboxSide {
  const fields = (vm.custom_fields ?? {}) as Record<string, unknown>;
  const vmid = typeof fields.ferry_vmid === 'number' ? fields.ferry_vmid : undefined;
  const base = { netboxId: vm.id, name: vm.name };
  if (vmid === undefined) return { ...base, problem: 'its ferry_vmid is not a number' };
  try {
    return { ...base, vmid, record: record(), baseline: fields.ferry_applied };
  } catch (err) {
    return { ...base, vmid, problem: `NetBox record: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/**
 * Proxmox: one `/cluster/resources` read for where each VM runs and its power state, one storage list
 * per node, and each VM's config with pending (`GET …/pending`), at most PVE_READS_AT_ONCE at a time.
 */
async function readRealities(
  client: ProxmoxClient,
  vms: ReadonlyArray<{ vmid: number }>,
): Promise<Array<VmReality | { problem: string }>> {
  const where = new Map<number, VmSummary>((await client.vms.list()).map((vm) => [vm.vmid, vm]));
  const storages = new Map<string, Promise<StorageFacts[]>>();
  const storagesOf = (node: string) => {
    if (!storages.has(node)) storages.set(node, nodeStorages(client, node));
    return storages.get(node)!;
  };
  let done = 0;
  return mapBounded(vms, PVE_READS_AT_ONCE, async ({ vmid }) => {
    const found = where.get(vmid);
    if (!found) return { problem: `Proxmox has no VM ${vmid} (removed by hand, or never built?)` };
    try {
      const [rows, nodeStorage] = await Promise.all([
        client.config.pendingRows(found.node, vmid),
        storagesOf(found.node),
      ]);
      return realityOf(found, rows, nodeStorage);
    } catch (err) {
      return { problem: `Proxmox VM ${vmid} on ${found.node}: ${err instanceof Error ? err.message : String(err)}` };
    } finally {
      beat({ phase: `Proxmox: ${++done} of ${vms.length} VM(s) read` });
    }
  });
}

function realityOf(
  found: VmSummary,
  rows: Parameters<typeof configAndPending>[0],
  storages: StorageFacts[],
): VmReality {
  return {
    vmid: found.vmid,
    node: found.node,
    power: found.status === 'running' ? 'running' : 'stopped',
    ...configAndPending(rows),
    storages,
  };
}

async function nodeStorages(client: ProxmoxClient, node: string): Promise<StorageFacts[]> {
  return (await client.nodes.storages(node)).map((s) => ({
    id: s.storage,
    content: s.content,
    active: s.active && s.enabled,
    ...(s.availBytes !== undefined ? { availBytes: s.availBytes } : {}),
  }));
}
