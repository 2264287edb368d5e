import { guestAgentEnabled, liveImportSpec } from '../../../src/domain/migration';
import { diskStorage } from '../../../src/domain/placement';
import { underPermit } from '../../vm/permit';
import type { MigrationRun } from '../run-context';
import { importSource } from './disk-sources';
import { importPermit } from './import-permit';

/**
 * live-import: the disk-less shell made before the approval (it held the VMID and had PVE check every
 * setting) is replaced by one create with every disk `import-from` and live-restore. The VM boots at
 * once; the task, and so this call, ends when PVE has streamed the disks in. One task copies all the
 * VM's disks, so it holds one import permit.
 */
export async function liveImport(run: MigrationRun): Promise<undefined> {
  const { assessment, vmid } = run.vm;
  const { node, vcenter, targetStorage: storage, cutover } = run.settings;
  const { status } = run;
  const vm = assessment.pveName;
  const from = Object.fromEntries(assessment.disks.map((d) => [d.slot, importSource(run.sources[d.slot]!)]));
  const guestAgent = guestAgentEnabled(run.settings);
  const placed = liveImportSpec(assessment, { node, vcenter, guestAgent }, from, storage);
  // Each disk onto the storage placement chose for it (without placement: targetStorage for all).
  const storageOf = (slot: string) => diskStorage(run.settings, assessment.disks.find((d) => d.slot === slot)!.source);
  const spec = { ...placed, importDisks: placed.importDisks?.map((d) => ({ ...d, storage: storageOf(d.slot) })) };
  const slots = assessment.disks.map((d) => d.slot);
  // Set before asking: a create that fails half-way still leaves a VM this workflow made (rollback destroys it).
  const replacedBefore = status.replacedVm === true;
  status.replacedVm = true;
  const result = await underPermit(run, importPermit(run, `live import ${vm}`), () =>
    run.acts
      .longCopy('import', cutover.importTimeoutMs)
      .liveImportVm.executeWithOptions(
        { summary: `live import ${vm} (${slots.join(', ')}) into ${storage} on ${node}` },
        [{ spec }],
      ),
  );
  const ours = replacedBefore || result.created;
  status.replacedVm = ours;
  const total = result.disks.reduce((sum, d) => sum + d.bytes, 0);
  status.imports = result.disks.map((d) => ({
    slot: d.slot,
    disk: assessment.disks.find((p) => p.slot === d.slot)!.source,
    volume: d.volume,
    bytes: d.bytes,
    // One task streamed them all: its time is shared by size, so the sum stays the task's duration.
    seconds: total > 0 ? (result.seconds * d.bytes) / total : 0,
    created: ours,
  }));
  if (result.created) run.record({ kind: 'live-import', vm, vmid, node, slots, storage });
  return undefined;
}
