import type { MigrateVmResult } from '../src/domain/migration';
import { migrationStatusQuery } from '../src/domain/messages';
import {
  newMigrationStatus,
  openMigrationRun,
  reportToWave,
  type MigrateVmInput,
  type MigrationRun,
} from './migration/run-context';
import { awaitApproval } from './migration/stages/approval';
import { leaveStopped, setBootOrder, startVm } from './migration/stages/boot';
import { converts, convertGuest, removeOverlays } from './migration/stages/convert';
import { refuseDisksOutOfReach } from './migration/stages/disks-in-reach';
import { cutover } from './migration/stages/cutover';
import { awaitCutoverWindow } from './migration/stages/cutover-window';
import { haWanted, registerHa } from './migration/stages/ha';
import { importDisks } from './migration/stages/import-disks';
import { conversionPlanned, inspectGuest } from './migration/stages/inspect-guest';
import { liveImport } from './migration/stages/live-import';
import { moveDisks } from './migration/stages/move-disks';
import { networks } from './migration/stages/networks';
import { attachOverlays } from './migration/stages/overlay';
import { recheckPlacement, wavePlaced } from './migration/stages/recheck';
import { needsRelocation, relocate } from './migration/stages/relocate';
import { shell } from './migration/stages/shell';
import { shutdownGuest } from './migration/stages/shutdown';
import { validate } from './migration/stages/validate';
import { verifySizes } from './migration/stages/verify';
import { guestIsChecked, recordUnchecked, verifyMigratedGuest } from './migration/stages/verify-guest';
import { followMigrationSteps, type CutoverItinerary, type MigrationStep } from './migration/steps';
import { openStatus } from './vm/run';
import { failureMessage } from './failures';

export type { MigrateVmInput } from './migration/run-context';

const startsAfter = (run: MigrationRun) => run.settings.cutover.startAfter;

// The steps every mode's cutover shares.
const RECHECK: MigrationStep = { step: 'recheck placement', when: wavePlaced, run: recheckPlacement };
const SHUTDOWN: MigrationStep = { stage: 'shutdown', run: shutdownGuest, safePoint: true, downtime: true };
const CONVERT: MigrationStep = { stage: 'convert', when: converts, run: convertGuest, safePoint: true };
const VERIFY_SIZES: MigrationStep = { stage: 'verify', run: verifySizes, downtime: true };
const BOOT_ORDER: MigrationStep = { step: 'boot order', run: setBootOrder, safePoint: true, downtime: true };
const VERIFY_GUEST: MigrationStep = { stage: 'verify-guest', when: guestIsChecked, run: verifyMigratedGuest };
const UNCHECKED: MigrationStep = {
  step: 'verification skipped',
  when: (r) => !guestIsChecked(r),
  run: recordUnchecked,
};
const HA: MigrationStep = { step: 'HA', when: haWanted, run: registerHa };
const DROP_OVERLAYS: MigrationStep = { step: 'drop overlays', run: removeOverlays };

/**
 * The cutover of each mode, after a person approved it (retried or rolled back as one segment: cutover.ts).
 * Steps marked `downtime` are the seconds of ferry's own work from the shutdown to the VM running on
 * Proxmox: they run their activities at the downtime priority, and the worker running one pauses its
 * conversions meanwhile. Not marked: the long steps, whose time is a copy or a boot on a Proxmox node
 * rather than the worker's work (the conversion itself, a disk import, live import's stream, the guest's
 * verification); marked, they would keep conversions at half speed for minutes.
 * import: each disk copied while the VM is off, then (if asked) started and proven up.
 * live-import: one create that boots at once and streams the disks in behind it.
 * overlay: started at once from overlays of the VMware disks; the disks move live afterwards (AFTER_CUTOVER).
 */
const CUTOVER: CutoverItinerary = {
  import: [
    RECHECK,
    SHUTDOWN,
    CONVERT,
    { stage: 'import', run: importDisks },
    VERIFY_SIZES,
    BOOT_ORDER,
    { stage: 'start', when: startsAfter, run: startVm, downtime: true },
    { step: 'left stopped', when: (r) => !startsAfter(r), run: leaveStopped },
    { ...VERIFY_GUEST, when: (r) => startsAfter(r) && guestIsChecked(r) },
    { ...UNCHECKED, when: (r) => startsAfter(r) && !guestIsChecked(r) },
    { ...HA, when: (r) => startsAfter(r) && haWanted(r) }, // a VM left stopped is not registered: HA would start it
    DROP_OVERLAYS,
  ],
  'live-import': [
    RECHECK,
    SHUTDOWN,
    CONVERT,
    { stage: 'import', run: liveImport },
    VERIFY_SIZES,
    VERIFY_GUEST,
    UNCHECKED,
    HA,
    DROP_OVERLAYS,
  ],
  overlay: [
    RECHECK,
    SHUTDOWN,
    CONVERT,
    { stage: 'import', run: attachOverlays, downtime: true },
    VERIFY_SIZES,
    BOOT_ORDER,
    { stage: 'start', run: startVm, downtime: true },
    VERIFY_GUEST,
    UNCHECKED,
    HA,
  ],
};

/**
 * One VM's itinerary, in order. Each step passes the run on or ends it (refused, rejected, approval
 * expired, cancelled, rolled back). Nothing on VMware changes before the approval except the live,
 * reversible storage vMotion. `ferry cancel` stops the steps before the cutover where they are; the
 * cutover takes it only at a safe point.
 */
const ITINERARY: readonly MigrationStep[] = [
  { stage: 'validate', run: validate, stopsOnCancel: true }, // what the VM is, and whether ferry can and may build it
  { stage: 'networks', run: networks, stopsOnCancel: true }, // the VNets it needs exist
  { step: 'placement moves', run: (r) => r.moves.settled().then(() => undefined), stopsOnCancel: true }, // a `ferry place` under way decides the node first
  { stage: 'shell', run: shell, stopsOnCancel: true }, // a diskless VM with the VMware CPU, memory, firmware and MACs
  { stage: 'relocate', when: needsRelocation, run: relocate, stopsOnCancel: true }, // storage vMotion onto the datastore Proxmox mounts
  { step: 'disks in reach', run: refuseDisksOutOfReach, stopsOnCancel: true }, // every disk where Proxmox reads it, or refused now
  { stage: 'inspect', when: conversionPlanned, run: inspectGuest, stopsOnCancel: true }, // what conversion will do, read from the disks
  { stage: 'awaiting-approval', run: awaitApproval, stopsOnCancel: true }, // a person decides
  { step: 'cutover window', run: awaitCutoverWindow, stopsOnCancel: true }, // inside the wave's window, not before approve --at
  { step: 'cutover', run: cutover(CUTOVER) },
  { stage: 'move', when: (r) => r.status.ranOnOverlays === true, run: moveDisks }, // overlay: the disks move live while the VM runs
  { step: 'drop overlays', when: (r) => r.status.ranOnOverlays === true, run: removeOverlays },
];

/** Moves one VM from vSphere to Proxmox (see ITINERARY), telling the wave, if any, of each stage and of the end. */
export async function migrateVm(input: MigrateVmInput): Promise<MigrateVmResult> {
  const status = openStatus('migrate', newMigrationStatus(input), migrationStatusQuery);
  let run: MigrationRun | undefined;
  try {
    run = await openMigrationRun(input, status);
    return (await followMigrationSteps(run, ITINERARY)) ?? run.finish('migrated', 'done');
  } catch (err) {
    run?.failed(err);
    if (!run) status.error = failureMessage(err);
    throw err;
  } finally {
    await reportToWave(input, status);
  }
}
