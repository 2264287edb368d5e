import { sourceInStorage } from '../conversion/overlay';
import type { VmDisk } from '../inventory';
import type { VmAssessment } from './assess';
import { parseDatastorePath, translateDiskPath, type DatastoreMapping } from './disks';
import type { Refusal } from './refusal';

/**
 * Per Proxmox slot: where its VMware disk is now, as a path and (if exported so) an import volume, and
 * as the storage and storage-relative path conversion reads it from.
 */
export type DiskSources = Record<
  string,
  { absolutePath: string; importVolume?: string; disk: string; storage: string; source: string }
>;

/**
 * Where Proxmox reads each planned disk, from the VM's disks as vCenter lists them now; or why it
 * cannot: a disk no longer attached, one not on the migration datastore (the storage vMotion did not
 * move it), one whose path no Proxmox storage mounts. Checked before the approval (right after the
 * vMotion) and again at the cutover.
 */
export function diskSourcesOf(
  planned: Pick<VmAssessment, 'disks'>,
  disks: ReadonlyArray<Pick<VmDisk, 'label' | 'fileName' | 'datastore'>>,
  settings: { migrationDatastore: string; datastores: readonly DatastoreMapping[] },
): { byslot: DiskSources } | { refusals: Refusal[] } {
  const { migrationDatastore, datastores } = settings;
  const refusals: Refusal[] = [];
  const byslot: DiskSources = {};
  for (const { slot, source } of planned.disks) {
    const disk = disks.find((d) => d.label === source);
    if (!disk) {
      refusals.push({
        code: 'disk-path-invalid',
        subject: source,
        reason: `${source} is no longer attached to the VMware VM`,
      });
      continue;
    }
    if (disk.datastore?.name !== migrationDatastore) {
      const where = `${disk.datastore?.name ?? 'an unknown datastore'} (${disk.fileName})`;
      refusals.push({
        code: 'disk-unmapped-datastore',
        subject: source,
        reason: `${source} is on ${where}, not on the migration datastore ${migrationDatastore}; the storage vMotion did not move it`,
      });
      continue;
    }
    const translated = translateDiskPath(disk, datastores);
    if (!translated.ok) {
      refusals.push(translated.refusal);
      continue;
    }
    const mapping = datastores.find((m) => m.datastore === parseDatastorePath(disk.fileName)?.datastore)!;
    byslot[slot] = {
      absolutePath: translated.absolutePath,
      importVolume: translated.importVolume,
      disk: source,
      storage: translated.storage,
      source: sourceInStorage(disk.fileName, mapping)!,
    };
  }
  return refusals.length > 0 ? { refusals } : { byslot };
}
