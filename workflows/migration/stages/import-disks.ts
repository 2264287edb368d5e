import { diskStorage } from '../../../src/domain/placement';
import { underPermit } from '../../vm/permit';
import type { MigrationRun } from '../run-context';
import { importSource } from './disk-sources';
import { importPermit } from './import-permit';

/**
 * import: each disk copied into its slot with import-from while the guest is off, one import permit
 * each. A disk imported by an earlier attempt of this cutover is not asked for again.
 */
export async function importDisks(run: MigrationRun): Promise<undefined> {
  const { assessment, vmid } = run.vm;
  const { node, cutover } = run.settings;
  const vm = assessment.pveName;
  const { status } = run;
  for (const planned of assessment.disks) {
    if (status.imports.some((i) => i.slot === planned.slot)) continue;
    const source = importSource(run.sources[planned.slot]!);
    const storage = diskStorage(run.settings, planned.source);
    // Asked before in this execution (an attempt that failed late): a disk found there now is ours.
    const askedBefore = run.importsAsked.has(planned.slot);
    run.importsAsked.add(planned.slot);
    const imported = await underPermit(run, importPermit(run, `import ${vm} ${planned.slot}`), () =>
      run.acts
        .longCopy('import', cutover.importTimeoutMs)
        .importDisk.executeWithOptions({ summary: `import ${planned.slot} of ${vm} into ${storage}` }, [
          { node, vmid, slot: planned.slot, source, storage },
        ]),
    );
    const created = !imported.alreadyPresent || askedBefore;
    const { bytes, seconds, volume } = imported;
    status.imports.push({ slot: planned.slot, disk: planned.source, volume, bytes, seconds, created });
    if (created) run.record({ kind: 'import-disk', vm, vmid, slot: planned.slot, disk: planned.source, storage });
  }
  return undefined;
}
