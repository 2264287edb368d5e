import { diskStorage } from '../../../src/domain/placement';
import { withPermit } from '../../permits';
import type { MigrationRun } from '../run-context';
import { importSource, type DiskSources } from './disk-sources';
import { importPermit } from './import-permit';

/**
 * import: each disk copied into its slot with import-from while the guest is off, one import permit
 * each. A disk imported by an earlier attempt of this cutover is not asked for again.
 */
export async function importDisks(run: MigrationRun, sources: DiskSources, asked: Set<string>): Promise<void> {
  const { assessment, vmid } = run.vm;
  const { node } = run.settings;
  const vm = assessment.pveName;
  const { status } = run;
  for (const planned of assessment.disks) {
    if (status.imports.some((i) => i.slot === planned.slot)) continue;
    const source = importSource(sources[planned.slot]!);
    const storage = diskStorage(run.settings, planned.source);
    // Asked before in this execution (an attempt that failed late): a disk found there now is ours.
    const askedBefore = asked.has(planned.slot);
    asked.add(planned.slot);
    const imported = await withPermit(importPermit(run, `import ${vm} ${planned.slot}`), async ({ waitedMs }) => {
      run.waited({ for: `import permit ${planned.slot}`, waitedMs });
      return run.acts.copies.importDisk.executeWithOptions(
        { summary: `import ${planned.slot} of ${vm} into ${storage}` },
        [{ node, vmid, slot: planned.slot, source, storage }],
      );
    });
    const created = !imported.alreadyPresent || askedBefore;
    status.imports.push({
      slot: planned.slot,
      disk: planned.source,
      volume: imported.volume,
      bytes: imported.bytes,
      seconds: imported.seconds,
      created,
    });
    if (created) run.record({ kind: 'import-disk', vm, vmid, slot: planned.slot, disk: planned.source, storage });
  }
}
