import { parsePropertyString } from '../../src/proxmox/property-string';
import { paramError } from './api-error';
import type { Cluster } from './cluster';
import type { Volume } from './storage';
import { DISK_KEY } from './vm-config';

/**
 * The drive checks qemu-server makes in the API call itself, before it forks the worker (its
 * `$check_drive_param` and `$check_storage_access` in create_vm and update_vm): a failure answers 400
 * with the parameter named, and no task starts. What only the worker finds out (a missing source
 * image, a failed copy) stays in the task.
 */
const NEW_DISK = /^(([^/:\s]+):)?(\d+(\.\d+)?)$/;

export function checkDrives(cluster: Cluster, node: string, settings: Record<string, string>): void {
  for (const [key, value] of Object.entries(settings).sort(([a], [b]) => a.localeCompare(b))) {
    if (!DISK_KEY.test(key)) continue;
    const drive = parsePropertyString(value, 'file');
    const file = drive.file ?? '';
    const importFrom = drive['import-from'];
    const newDisk = NEW_DISK.exec(file);

    if (importFrom !== undefined) {
      if (!newDisk || Number(newDisk[3]) !== 0)
        throw paramError({ [key]: "'import-from' requires special syntax - use <storage ID>:0,import-from=<source>" });
      // Both are mandatory here: their defaults (2m, no keys) would not match the imported vars.
      if (key === 'efidisk0') {
        for (const required of ['efitype', 'pre-enrolled-keys']) {
          if (drive[required] === undefined)
            throw paramError({ [key]: `need to specify '${required}' when using 'import-from'` });
        }
      } else if (key === 'tpmstate0' && drive.version === undefined) {
        throw paramError({ [key]: "need to specify 'version' when using 'import-from'" });
      }
    }

    const cdrom = drive.media === 'cdrom';
    const volume = newDisk ? undefined : managedVolume(cluster, node, file);
    if (volume?.vtype === 'iso' && !cdrom)
      throw paramError({ [key]: "explicit 'media=cdrom' is required for iso images" });

    if (newDisk && !cdrom) {
      const storage = newDisk[2] ? cluster.storages.get(newDisk[2]) : undefined;
      if (storage && !storage.content.includes('images'))
        throw paramError({ storage: `storage '${storage.id}' does not support vm images` });
    } else if (volume && volume.vtype !== 'images' && volume.vtype !== 'iso') {
      throw paramError({ [key]: "content type needs to be 'images' or 'iso'" });
    }

    if (importFrom !== undefined) {
      const source = managedVolume(cluster, node, importFrom);
      if (source && source.vtype !== 'images' && source.vtype !== 'import') {
        throw paramError({
          [key]: `${importFrom} has wrong type '${source.vtype}' - needs to be 'images' or 'import'`,
        });
      }
    }
  }
}

/** The storage volume a value names, or undefined for paths, `none`, `cdrom` and names the worker will reject. */
function managedVolume(cluster: Cluster, node: string, volid: string): Volume | undefined {
  const storage = /^([^/:\s]+):/.exec(volid)?.[1];
  if (!storage || !cluster.storages.get(storage)) return undefined;
  try {
    return cluster.storages.resolve(volid, node);
  } catch {
    return undefined;
  }
}
