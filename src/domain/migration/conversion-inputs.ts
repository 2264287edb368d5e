import type { ConversionFacts } from '../conversion/decision';
import { guestFamily } from '../conversion/guest-family';
import { sourceInStorage } from '../conversion/overlay';
import type { VmDisk } from '../inventory';
import type { VmAssessment } from './assess';
import { parseDatastorePath, type DatastoreMapping } from './disks';

/** What vCenter says of a VM, as conversion decisions take it. */
export function conversionFactsOf(
  a: Pick<VmAssessment, 'name' | 'ostype' | 'nics' | 'disks'>,
  firmware: 'bios' | 'efi',
): ConversionFacts {
  return {
    vmName: a.name,
    family: guestFamily(a.ostype.ostype),
    firmware,
    nics: a.nics.map((n) => ({ slot: n.slot, mac: n.mac })),
    disks: a.disks.map((d) => ({ slot: d.slot })),
  };
}

/**
 * The VM's VMDKs as a convert worker reads them: the storage that mounts the migration datastore and each
 * disk's path in it, or why they cannot be read there yet (not on the migration datastore).
 */
export function conversionDisksOf(
  a: Pick<VmAssessment, 'disks'>,
  vmDisks: ReadonlyArray<Pick<VmDisk, 'label' | 'fileName'>>,
  datastores: readonly DatastoreMapping[],
  migrationDatastore: string,
): { storage: string; disks: Array<{ slot: string; source: string }> } | { problem: string } {
  const mapping = datastores.find((m) => m.datastore === migrationDatastore);
  if (!mapping) return { problem: `no Proxmox storage mounts the migration datastore ${migrationDatastore}` };
  const disks: Array<{ slot: string; source: string }> = [];
  const elsewhere: string[] = [];
  for (const d of a.disks) {
    const fileName = vmDisks.find((v) => v.label === d.source)?.fileName ?? '';
    const source =
      parseDatastorePath(fileName)?.datastore === mapping.datastore ? sourceInStorage(fileName, mapping) : undefined;
    if (source === undefined) elsewhere.push(`${d.slot} (${fileName || 'no file'})`);
    else disks.push({ slot: d.slot, source });
  }
  if (elsewhere.length > 0) return { problem: `${elsewhere.join(', ')} not on ${migrationDatastore} yet` };
  return { storage: mapping.storage, disks };
}
