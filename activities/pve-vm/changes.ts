import { activityInfo } from '@temporalio/activity';
import { configAndPending, type VmReality } from '../../src/domain/change';
import { configWriteRequest, type ConfigWriteRequest } from '../../src/proxmox/change-params';
import { normaliseValue } from '../../src/proxmox/api';
import { FerryError } from '../../src/errors';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import { beat } from '../heartbeat';
import type { PveVmChanges } from '../pve-vm-contract';
import { readGuestView } from './guest-view';

/** Day 2's Proxmox side: the VM as the plan reads it, the plan's writes (each looks before it writes), the guest's view. */
export function createPveVmChanges(deps: ActivityDeps): PveVmChanges {
  const { pve } = clientsOf(deps);
  return {
    async readVmState({ vmid }) {
      const found = await pve().vms.findById(vmid);
      if (!found)
        throw new FerryError(`Proxmox has no VM ${vmid}: nothing to change (teardown removed it?)`, 'not-found');
      const { node } = found;
      const [rows, power, storages] = await Promise.all([
        pve().config.pendingRows(node, vmid),
        pve().power.status(node, vmid),
        pve().nodes.storages(node),
      ]);
      const reality: VmReality = {
        vmid,
        node,
        power: power.status === 'running' ? 'running' : 'stopped',
        ...configAndPending(rows),
        storages: storages.map((s) => ({
          id: s.storage,
          content: s.content,
          active: s.active && s.enabled,
          ...(s.availBytes !== undefined ? { availBytes: s.availBytes } : {}),
        })),
      };
      return { ...reality, ...(found.name ? { name: found.name } : {}) };
    },

    async readVmBack({ node, vmid }) {
      const [rows, power] = await Promise.all([pve().config.pendingRows(node, vmid), pve().power.status(node, vmid)]);
      const { config, pending } = configAndPending(rows);
      return { config, pending, power: power.status === 'running' ? 'running' : 'stopped' };
    },

    async writeVmConfig({ node, vmid, write, digest }) {
      const { config, pending } = configAndPending(await pve().config.pendingRows(node, vmid));
      const request = configWriteRequest(write, config);
      const left = stillToWrite(request, config, pending);
      if (Object.keys(left.params).length === 0) return { sent: [] };
      // A retry after a lost answer carries no digest: the first attempt's write changed it.
      const guarded = digest && activityInfo().attempt === 1 ? { ...left.params, digest } : left.params;
      await pve().config.write(node, vmid, { ...left, params: guarded }, { onProgress: beat });
      return { sent: Object.keys(left.params) };
    },

    async resizeVmDisk({ node, vmid, slot, size }) {
      const { changed } = await pve().disks.resize(node, vmid, slot, size, { onProgress: beat });
      return { changed };
    },

    async moveVmDisk({ node, vmid, slot, storage, deleteSource }) {
      const { changed } = await pve().disks.move(node, vmid, slot, { storage, deleteSource }, { onProgress: beat });
      return { changed };
    },

    readGuestView: ({ node, vmid }) => readGuestView(pve(), node, vmid),
  };
}

/**
 * The parameters of a write that Proxmox does not have yet (as the VM runs, or pending): an earlier
 * attempt's write is found done and not sent twice. Deletions and reverts are kept while the key is there.
 */
function stillToWrite(
  request: ConfigWriteRequest,
  config: Record<string, string>,
  pending: ReadonlyArray<{ key: string; value?: string; delete?: string }>,
): ConfigWriteRequest {
  const pendingOf = new Map(pending.map((p) => [p.key, p]));
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(request.params)) {
    if (key === 'delete') {
      const left = value.split(',').filter((k) => k in config && pendingOf.get(k)?.delete === undefined);
      if (left.length) params.delete = left.join(',');
    } else if (key === 'revert') {
      const left = value.split(',').filter((k) => pendingOf.has(k));
      if (left.length) params.revert = left.join(',');
    } else if (key !== 'digest') {
      const now = pendingOf.get(key)?.value ?? config[key];
      if (now === undefined || normaliseValue(now) !== normaliseValue(value)) params[key] = value;
    }
  }
  return { method: request.method, params };
}
