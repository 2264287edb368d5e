import type { MigrateVmResult } from '../src/domain/migration';
import { MigrationRun, type MigrateVmInput } from './migration/run-context';
import { awaitApproval } from './migration/stages/approval';
import { cutover } from './migration/stages/cutover';
import { awaitCutoverWindow } from './migration/stages/cutover-window';
import { inspectGuest } from './migration/stages/inspect-guest';
import { moveDisks } from './migration/stages/move-disks';
import { networks } from './migration/stages/networks';
import { relocate } from './migration/stages/relocate';
import { shell } from './migration/stages/shell';
import type { Stage } from './migration/stages/types';
import { validate } from './migration/stages/validate';
import { stopOnCancel } from './migration/stop-on-cancel';

export type { MigrateVmInput } from './migration/run-context';

/**
 * The itinerary of one VM, in order. Each stage passes the run on or ends it (refused, rejected,
 * approval expired, cancelled, rolled back). Nothing on VMware changes before the approval except the
 * live, reversible storage vMotion. `ferry cancel` stops the stages before the cutover where they are;
 * the cutover itself takes it only at a safe point (see cutover).
 */
const ITINERARY: ReadonlyArray<{ stage: Stage; stopsOnCancel: boolean }> = [
  { stage: validate, stopsOnCancel: true }, // what the VM is, and whether ferry can and may build it
  { stage: networks, stopsOnCancel: true }, // the VNets it needs exist
  { stage: shell, stopsOnCancel: true }, // a diskless VM with the VMware CPU, memory, firmware and MACs
  { stage: relocate, stopsOnCancel: true }, // storage vMotion onto the datastore Proxmox mounts
  { stage: inspectGuest, stopsOnCancel: true }, // what conversion will do, read from the disks (read-only), for the cutover plan
  { stage: awaitApproval, stopsOnCancel: true }, // a person decides
  { stage: awaitCutoverWindow, stopsOnCancel: true }, // inside the wave's cutover window, not before approve --at
  { stage: cutover, stopsOnCancel: false }, // shutdown, convert, disks in (import, live import or overlays), verify, boot order, start; a failure waits for retry or rollback
  { stage: moveDisks, stopsOnCancel: false }, // overlay: the disks move live to their storages while the VM runs
];

/** Moves one VM from vSphere to Proxmox (see ITINERARY), telling the wave, if any, of each stage and of the end. */
export async function migrateVm(input: MigrateVmInput): Promise<MigrateVmResult> {
  const run = new MigrationRun(input);
  try {
    for (const { stage, stopsOnCancel } of ITINERARY) {
      const ended = stopsOnCancel ? await stopOnCancel(run, stage) : await stage(run);
      if (ended) return ended;
    }
    return run.finish('migrated', 'done');
  } catch (err) {
    run.failed(err);
    throw err;
  } finally {
    await run.reportFinished();
  }
}
