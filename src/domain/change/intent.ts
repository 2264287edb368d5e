import { GIB } from '../placement/units';
import { normaliseOptionValue } from './disk-options';
import {
  diskStorageOf,
  nicInterfaces,
  nicNetworkOf,
  pveNicOf,
  specFromRecord,
  type NetboxVmRecord,
  type ProvisionSpec,
  type SpecDefaults,
} from '../provisioning';
import type { SlotNicSpec } from '../pve-vm-spec';

/**
 * What NetBox says a built VM should be, in Proxmox's terms: the very translation provisioning builds
 * with (specFromRecord, then pveNicOf for each NIC), so a VM just provisioned from a record plans to
 * nothing. Only the fields day 2 manages: vCPUs, memory, disks (size, storage, options) and NICs.
 */

export interface IntendedDisk {
  slot: string;
  storage: string;
  /** The record names the storage (ferry_storage): only then does a different one mean a move. */
  storageFromNetbox: boolean;
  sizeGiB: number;
  sizeBytes: number;
  /** Options as Proxmox writes them (`iothread: '1'`, `discard: 'on'`). */
  options: Record<string, string>;
}

export interface IntendedNic {
  slot: string;
  /** The NIC as provisioning would create it (MAC only when NetBox has one). */
  nic: SlotNicSpec;
  /** The record names the bridge (ferry_network): only then does a different one mean a change. */
  bridgeFromNetbox: boolean;
}

export interface VmIntent {
  name: string;
  netboxId?: number;
  vcpus: number;
  memoryMiB: number;
  disks: IntendedDisk[];
  nics: IntendedNic[];
}

export type IntentResult = { ok: true; intent: VmIntent } | { ok: false; problems: string[] };

/** A spec's intent; every storage and bridge counts as chosen (a spec given whole names them). */
export function intentFromSpec(spec: ProvisionSpec): VmIntent {
  return {
    name: spec.name,
    ...(spec.netboxId !== undefined ? { netboxId: spec.netboxId } : {}),
    vcpus: spec.cores * spec.sockets,
    memoryMiB: spec.memoryMiB,
    disks: spec.disks.map((d) => ({
      slot: d.slot,
      storage: d.storage,
      storageFromNetbox: true,
      sizeGiB: d.sizeGiB,
      sizeBytes: d.sizeGiB * GIB,
      options: Object.fromEntries(Object.entries(d.options).map(([k, v]) => [k, normaliseOptionValue(v)])),
    })),
    nics: spec.nics.map((n) => ({ slot: n.slot, nic: pveNicOf(n), bridgeFromNetbox: true })),
  };
}

/** A NetBox record's intent, with the defaults provisioning completes it with; its problems as provisioning names them. */
export function intentFromRecord(record: NetboxVmRecord, defaults: SpecDefaults): IntentResult {
  const built = specFromRecord(record, defaults);
  if (!built.ok) return built;
  const intent = intentFromSpec(built.spec);
  const interfaces = nicInterfaces(record);
  return {
    ok: true,
    intent: {
      ...intent,
      disks: intent.disks.map((d) => {
        const source = record.disks?.find((r) => r.name === d.slot);
        return { ...d, storageFromNetbox: diskStorageOf(record, source, defaults).fromNetbox };
      }),
      nics: intent.nics.map((n) => {
        const source = interfaces.find((i) => i.name === n.slot);
        return { ...n, bridgeFromNetbox: nicNetworkOf(record, n.slot, source, defaults).fromNetbox };
      }),
    },
  };
}
