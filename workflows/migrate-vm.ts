import type { MigrateVmResult } from '../src/domain/migration';
import { MigrationRun, type MigrateVmInput } from './migration/run-context';
import { awaitApproval } from './migration/stages/approval';
import { cutover } from './migration/stages/cutover';
import { networks } from './migration/stages/networks';
import { relocate } from './migration/stages/relocate';
import { shell } from './migration/stages/shell';
import type { Stage } from './migration/stages/types';
import { validate } from './migration/stages/validate';

export type { MigrateVmInput } from './migration/run-context';

/**
 * The itinerary of one VM, in order. Each stage passes the run on or ends it (refused, rejected,
 * approval expired, rolled back). Nothing on VMware changes before the approval except the live,
 * reversible storage vMotion.
 */
const ITINERARY: readonly Stage[] = [
  validate, // what the VM is, and whether ferry can and may build it
  networks, // the VNets it needs exist
  shell, // a diskless VM with the VMware CPU, memory, firmware and MACs
  relocate, // storage vMotion onto the datastore Proxmox mounts
  awaitApproval, // a person decides
  cutover, // shutdown, disks in (import or live import), verify, boot order, start; a failure waits for retry or rollback
];

/** Moves one VM from vSphere to Proxmox (see ITINERARY), telling the wave, if any, of each stage and of the end. */
export async function migrateVm(input: MigrateVmInput): Promise<MigrateVmResult> {
  const run = new MigrationRun(input);
  try {
    for (const stage of ITINERARY) {
      const ended = await stage(run);
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
