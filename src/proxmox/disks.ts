import { type ProxmoxApi, vmPath, normaliseValue } from './api';
import { VmConfigApi } from './config';
import { ProxmoxInputError, ProxmoxPolicyError, ProxmoxRequestError } from './errors';
import { formatDiskSize, parseDiskSize } from './disk-size';
import { formatPropertyString, parsePropertyString } from './property-string';
import { isCdromValue } from './cdrom-tpm';

export { parseDiskSize };
import { nullSchema } from './schemas';
import type { TaskResult, WaitOptions } from './tasks';

/**
 * Disks (`scsiN`, `virtioN`, `sataN`, `ideN`, `efidisk0`, `tpmstate0`) with proxmox_disk's `create`
 * semantics:
 * - `regular`: create the disk if the slot is empty, else update its options;
 * - `disabled`: never create; the disk must exist, its options are updated;
 * - `forced`: always create a new disk; a disk already in the slot is detached to `unusedN` first —
 *   never deleted.
 * Detach keeps the volume as `unusedN`; delete removes it. `import-from` only ever creates a disk: a
 * used slot is refused, not silently skipped. Writes that allocate or copy use the asynchronous
 * `POST …/config` and wait for its task (warnings are returned, not hidden).
 */
export type DiskCreateMode = 'regular' | 'disabled' | 'forced';
export type DiskOptions = Record<string, string | number | boolean>;

const SLOT = /^(ide[0-3]|sata[0-5]|scsi([0-9]|[12][0-9]|30)|virtio([0-9]|1[0-5])|efidisk0|tpmstate0|unused\d{1,3})$/;

export function checkSlot(slot: string): string {
  if (!SLOT.test(slot))
    throw new ProxmoxInputError(
      `not a disk slot (scsi0–30, virtio0–15, sata0–5, ide0–3, efidisk0, tpmstate0, unusedN): "${slot}"`,
    );
  return slot;
}

export interface Disk {
  /** Volume id (`local-lvm:vm-100-disk-0`) or path. */
  volume: string;
  /** Bytes, from the `size=` option (undefined when PVE wrote none, e.g. a CD-ROM). */
  sizeBytes?: number;
  options: Record<string, string>;
}

export function parseDisk(value: string): Disk {
  const { file, size, ...options } = parsePropertyString(value, 'file');
  return { volume: file ?? '', ...(size ? { sizeBytes: parseDiskSize(size) } : {}), options };
}

const ATTACHED_SLOT = /^(scsi|sata|ide|virtio)\d+$/;

/** The disks attached in a VM config (`scsiN`, `sataN`, `ideN`, `virtioN`), by slot; CD drives (`media=cdrom`) are not disks. */
export function attachedDisks(values: Readonly<Record<string, string>>): Record<string, Disk> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([key, value]) => ATTACHED_SLOT.test(key) && !isCdromValue(value))
      .map(([key, value]) => [key, parseDisk(value)]),
  );
}

export interface EnsureDiskSpec {
  storage: string;
  sizeGiB: number;
  /** raw, qcow2, vmdk (file storages); PVE's default when omitted. */
  format?: 'raw' | 'qcow2' | 'vmdk';
  options?: DiskOptions;
  create?: DiskCreateMode;
}

export interface ImportDiskSpec {
  storage: string;
  /** Volume id (`nfs-migration:import/app01.vmdk`) or absolute path (root@pam only). */
  source: string;
  format?: 'raw' | 'qcow2' | 'vmdk';
  options?: DiskOptions;
}

export type DiskAction = 'created' | 'replaced' | 'updated' | 'unchanged';

const stringOptions = (o: DiskOptions = {}) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, normaliseValue(v)]));

export class DisksApi {
  private readonly config: VmConfigApi;

  constructor(private readonly api: ProxmoxApi) {
    this.config = new VmConfigApi(api);
  }

  async get(node: string, vmid: number, slot: string): Promise<Disk | undefined> {
    const value = (await this.config.get(node, vmid)).values[checkSlot(slot)];
    return value === undefined ? undefined : parseDisk(value);
  }

  async ensure(
    node: string,
    vmid: number,
    slot: string,
    spec: EnsureDiskSpec,
    wait: WaitOptions = {},
  ): Promise<{ action: DiskAction; task?: TaskResult }> {
    checkSlot(slot);
    const mode = spec.create ?? 'regular';
    const config = await this.config.get(node, vmid);
    const current = config.values[slot];
    const wanted = stringOptions(spec.options);

    if (current !== undefined && mode !== 'forced') {
      const disk = parseDisk(current);
      const changed = Object.entries(wanted).filter(([k, v]) => disk.options[k] !== v);
      if (changed.length === 0) return { action: 'unchanged' };
      const value = formatPropertyString(
        {
          file: disk.volume,
          ...disk.options,
          ...wanted,
          size: disk.sizeBytes === undefined ? undefined : formatDiskSize(disk.sizeBytes),
        },
        'file',
      );
      await this.config.update(node, vmid, { set: { [slot]: value }, digest: config.digest });
      return { action: 'updated' };
    }
    if (current === undefined && mode === 'disabled') {
      throw new ProxmoxRequestError(`VM ${vmid} has no disk ${slot} and create is 'disabled'`, { vmid, slot });
    }
    let digest = config.digest;
    if (current !== undefined) {
      await this.detach(node, vmid, slot); // forced: the old volume stays as unusedN
      digest = (await this.config.get(node, vmid)).digest;
    }
    const value = formatPropertyString(
      { file: `${spec.storage}:${spec.sizeGiB}`, ...(spec.format ? { format: spec.format } : {}), ...wanted },
      'file',
    );
    const task = await this.api.task('POST', `${vmPath(node, vmid)}/config`, { [slot]: value, digest }, wait);
    return { action: current === undefined ? 'created' : 'replaced', ...(task ? { task } : {}) };
  }

  /** Creates a disk from an image (`import-from`); refuses a slot that already holds a disk. */
  async import(
    node: string,
    vmid: number,
    slot: string,
    spec: ImportDiskSpec,
    wait: WaitOptions = {},
  ): Promise<{ disk: Disk; task?: TaskResult }> {
    checkSlot(slot);
    const config = await this.config.get(node, vmid);
    const current = config.values[slot];
    if (current !== undefined) {
      throw new ProxmoxPolicyError(
        `VM ${vmid} already has ${slot} (${parseDisk(current).volume}); import-from only creates disks — detach it first or use another slot`,
        { vmid, slot, volume: parseDisk(current).volume },
      );
    }
    const value = formatPropertyString(
      {
        file: `${spec.storage}:0`,
        'import-from': spec.source,
        ...(spec.format ? { format: spec.format } : {}),
        ...stringOptions(spec.options),
      },
      'file',
    );
    const task = await this.api.task(
      'POST',
      `${vmPath(node, vmid)}/config`,
      { [slot]: value, digest: config.digest },
      { timeoutMs: 6 * 3600_000, ...wait },
    );
    const disk = await this.get(node, vmid, slot);
    if (!disk)
      throw new ProxmoxRequestError(`VM ${vmid}: import into ${slot} ended without a disk in ${slot}`, { vmid, slot });
    return { disk, ...(task ? { task } : {}) };
  }

  /**
   * Attaches an existing volume to an empty slot (`scsi0: nfs-migration:100/vm-100-disk-0.qcow2`). The same
   * volume there already is nothing to do; another disk in the slot is refused, never replaced.
   */
  async attach(
    node: string,
    vmid: number,
    slot: string,
    volume: string,
    options: DiskOptions = {},
  ): Promise<{ changed: boolean }> {
    checkSlot(slot);
    const config = await this.config.get(node, vmid);
    const current = config.values[slot];
    if (current !== undefined) {
      if (parseDisk(current).volume === volume) return { changed: false };
      throw new ProxmoxPolicyError(
        `VM ${vmid} already has ${slot} (${parseDisk(current).volume}); ferry attaches ${volume} only to an empty slot`,
        { vmid, slot, volume: parseDisk(current).volume },
      );
    }
    await this.config.update(node, vmid, {
      set: { [slot]: formatPropertyString({ file: volume, ...stringOptions(options) }, 'file') },
      digest: config.digest,
    });
    return { changed: true };
  }

  /** Detaches a disk; PVE keeps its volume as `unusedN` (returned). */
  async detach(node: string, vmid: number, slot: string): Promise<{ changed: boolean; unused?: string }> {
    checkSlot(slot);
    const before = await this.config.get(node, vmid);
    if (before.values[slot] === undefined) return { changed: false };
    const volume = parseDisk(before.values[slot]!).volume;
    await this.api.call('PUT', `${vmPath(node, vmid)}/unlink`, { idlist: slot, force: 0 }, nullSchema);
    const after = await this.config.get(node, vmid);
    const unused = Object.entries(after.values).find(
      ([k, v]) => /^unused\d+$/.test(k) && parseDisk(v).volume === volume,
    )?.[0];
    return { changed: true, ...(unused ? { unused } : {}) };
  }

  /** Removes a disk and its volume (also for `unusedN`). */
  async delete(node: string, vmid: number, slot: string): Promise<{ changed: boolean }> {
    checkSlot(slot);
    if ((await this.config.get(node, vmid)).values[slot] === undefined) return { changed: false };
    await this.api.call('PUT', `${vmPath(node, vmid)}/unlink`, { idlist: slot, force: 1 }, nullSchema);
    return { changed: true };
  }

  /** Grows a disk to `size` (`32G`, `512M`, bytes); a disk at or above it is left alone; shrinking is refused. */
  async resize(
    node: string,
    vmid: number,
    slot: string,
    size: string,
    wait: WaitOptions = {},
  ): Promise<{ changed: boolean; task?: TaskResult }> {
    checkSlot(slot);
    const target = parseDiskSize(size);
    const config = await this.config.get(node, vmid);
    const value = config.values[slot];
    if (value === undefined) throw new ProxmoxRequestError(`VM ${vmid} has no disk ${slot} to resize`, { vmid, slot });
    const current = parseDisk(value).sizeBytes;
    if (current !== undefined && current === target) return { changed: false };
    if (current !== undefined && current > target)
      throw new ProxmoxRequestError(`VM ${vmid} ${slot} is ${current} bytes; shrinking to ${target} is not supported`, {
        vmid,
        slot,
      });
    // PVE >= 8 answers a UPID; 7.x did the work in the request (null).
    const task = await this.api.task(
      'PUT',
      `${vmPath(node, vmid)}/resize`,
      { disk: slot, size, digest: config.digest },
      wait,
    );
    return { changed: true, ...(task ? { task } : {}) };
  }

  /** Moves a disk to another storage (and format); already there: nothing to do. The source is kept as unusedN unless `deleteSource`. */
  async move(
    node: string,
    vmid: number,
    slot: string,
    target: { storage: string; format?: 'raw' | 'qcow2' | 'vmdk'; deleteSource?: boolean; bwlimitKiBps?: number },
    wait: WaitOptions = {},
  ): Promise<{ changed: boolean; task?: TaskResult }> {
    checkSlot(slot);
    const config = await this.config.get(node, vmid);
    const value = config.values[slot];
    if (value === undefined) throw new ProxmoxRequestError(`VM ${vmid} has no disk ${slot} to move`, { vmid, slot });
    const volume = parseDisk(value).volume;
    const onTarget = volume.startsWith(`${target.storage}:`);
    const format = /\.(raw|qcow2|vmdk)$/.exec(volume)?.[1] ?? 'raw';
    if (onTarget && (!target.format || target.format === format)) return { changed: false };
    const task = await this.api.task(
      'POST',
      `${vmPath(node, vmid)}/move_disk`,
      {
        disk: slot,
        storage: target.storage,
        format: target.format,
        delete: target.deleteSource ?? false,
        bwlimit: target.bwlimitKiBps,
        digest: config.digest,
      },
      { timeoutMs: 6 * 3600_000, ...wait },
    );
    return { changed: true, ...(task ? { task } : {}) };
  }
}
