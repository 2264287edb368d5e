import type { MigrationRun } from '../run-context';

/**
 * overlay: the VM's disks are qcow2 overlays of its VMware disks on the migration datastore (made by the
 * conversion, or made now), attached to the shell as ordinary PVE volumes; the VM then starts at once
 * from them. Its downtime is a shutdown and a boot, whatever the disks' size; they move to their
 * storages live afterwards (move-disks.ts). VMware's files are only read.
 */
export async function attachOverlays(run: MigrationRun): Promise<undefined> {
  const { assessment, vmid } = run.vm;
  const vm = assessment.pveName;
  const overlays = run.status.conversion?.result?.converted
    ? run.status.conversion.result.overlays
    : await createOverlays(run);
  for (const planned of assessment.disks) {
    const volume = overlays.find((o) => o.slot === planned.slot)!.volume;
    const { attached } = await run.acts.pveTask.attachDisk.executeWithOptions(
      { summary: `attach ${planned.slot} of ${vm} from its overlay ${volume}` },
      [{ node: run.settings.node, vmid, slot: planned.slot, volume }],
    );
    if (attached || !run.status.actions.some((a) => a.kind === 'attach-overlay' && a.slot === planned.slot)) {
      run.record({ kind: 'attach-overlay', vm, vmid, slot: planned.slot, disk: planned.source });
    }
    run.status.moves = [
      ...(run.status.moves ?? []).filter((m) => m.slot !== planned.slot),
      { slot: planned.slot, from: volume, storage: '', attempts: 0 },
    ];
  }
  return undefined;
}

/** Overlays without a conversion: made on a convert worker (it mounts the datastore), kept where they are. */
async function createOverlays(run: MigrationRun): Promise<Array<{ slot: string; volume: string }>> {
  const { assessment, vmid } = run.vm;
  const first = run.sources[assessment.disks[0]!.slot]!;
  const disks = assessment.disks.map((d) => ({ slot: d.slot, source: run.sources[d.slot]!.source }));
  const conversion = run.settings.rules.conversion!;
  run.status.overlays = { storage: first.storage, disks };
  const { overlays } = await run.acts
    .conversion(conversion.timeoutMs)
    .createOverlays.executeWithOptions(
      { summary: `overlays over the VMDKs of ${assessment.name} (${disks.map((d) => d.slot).join(', ')})` },
      [{ vmid, storage: first.storage, disks }],
    );
  return overlays;
}
