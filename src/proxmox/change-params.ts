import type { ConfigWrite } from '../domain/change/steps';
import type { Nic } from '../domain/pve-nic';
import { ProxmoxInputError } from './errors';
import { formatNic } from './nics';
import { formatPropertyString, parsePropertyString } from './property-string';

/**
 * A day-2 config write (src/domain/change/steps.ts) as the parameters of one `PUT`/`POST …/config`.
 * Disk options are merged onto the drive as the VM has it when written (its volume and size as they
 * are then: a move or resize may have come between plan and write); NICs are written whole, MAC kept.
 * Deletions never carry `force`: a detached disk stays as unusedN.
 */
export interface ConfigWriteRequest {
  /** POST (a task) when the write allocates a disk; else the synchronous PUT. */
  method: 'PUT' | 'POST';
  params: Record<string, string>;
}

export function configWriteRequest(
  write: ConfigWrite,
  current: Readonly<Record<string, string>>,
  digest?: string,
): ConfigWriteRequest {
  const params: Record<string, string> = {};
  if (write.cores !== undefined) params.cores = String(write.cores);
  if (write.vcpus !== undefined) params.vcpus = String(write.vcpus);
  if (write.memory !== undefined) params.memory = String(write.memory);
  for (const [slot, nic] of Object.entries(write.addNics)) params[slot] = formatNic(nic);
  for (const [slot, nic] of Object.entries(write.setNics)) params[slot] = formatNicValue(nic);
  for (const [slot, disk] of Object.entries(write.newDisks))
    params[slot] = formatPropertyString({ file: `${disk.storage}:${disk.sizeGiB}`, ...disk.options }, 'file');
  for (const [slot, edit] of Object.entries(write.diskOptions))
    params[slot] = withDiskOptions(slot, current[slot], edit);
  const removed = [...write.delete, ...write.detach];
  for (const key of [...removed, ...write.revert])
    if (key in params) throw new ProxmoxInputError(`config write sets ${key} and also removes or reverts it`);
  if (removed.length > 0) params.delete = removed.join(',');
  if (write.revert.length > 0) params.revert = write.revert.join(',');
  if (digest) params.digest = digest;
  return { method: Object.keys(write.newDisks).length > 0 ? 'POST' : 'PUT', params };
}

/** A NIC's whole value: `virtio=BC:24:11:…,bridge=vmbr0,tag=30` (no MAC: Proxmox makes one). */
export function formatNicValue(nic: Nic): string {
  const head = nic.macaddr ? `${nic.model}=${nic.macaddr}` : nic.model;
  return [head, formatPropertyString(nic.options)].filter(Boolean).join(',');
}

function withDiskOptions(slot: string, value: string | undefined, edit: ConfigWrite['diskOptions'][string]): string {
  if (value === undefined) throw new ProxmoxInputError(`the VM has no disk ${slot} to change the options of`);
  const drive: Record<string, string> = parsePropertyString(value, 'file');
  for (const key of edit.unset) delete drive[key];
  Object.assign(drive, edit.set);
  return formatPropertyString(drive, 'file');
}
