import {
  ApplicationFailure,
  CancellationScope,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  assessInventory,
  bootOrder,
  cutoverPlan,
  filesOnDatastore,
  hardwareChanges,
  measuredThroughput,
  missingVnetRefusals,
  nicActions,
  refusal,
  sdnActions,
  liveImportCreateParams,
  shellCreateParams,
  translateDiskPath,
  vmidOccupancy,
  type MigrateVmResult,
  type MigrationAction,
  type MigrationSettings,
  type MigrationStage,
  type MigrationStatus,
  type Refusal,
  type Throughput,
  type VmAssessment,
} from '../src/domain/migration';
import type { VmSnapshot } from '../activities/migration-contract';
import { PERMIT_KEYS } from '../src/domain/permits';
import { FerryKind, FerryStage, VmId, VmName, WaveId } from '../src/domain/search-attributes';
import { workflowNow } from './clock';
import { failureMessage } from './failures';
import { cutoverPlanQuery, importThroughputSignal, migrationStatusQuery, vmFinishedSignal, vmStageSignal } from '../src/messages';
import { longActivities, longScheduleToCloseMs, reads, timingOf } from './migration/proxies';
import { CutoverGate } from './migration/cutover-gate';
import { withPermit } from './permits';
import { pollUntil } from './poll';
import { sdnSync } from './sdn-sync';

export interface MigrateVmInput {
  moid: string;
  /** Resolved once by the wave; a standalone run loads them from the worker's configuration. */
  settings?: MigrationSettings;
  waveId?: string;
  /** Import throughput measured so far by the wave (for the cutover plan's downtime estimate). */
  throughput?: Throughput;
  /** The wave to tell about stage changes and the end (its id survives the wave's continue-as-new). */
  waveWorkflowId?: string;
  /** The VM as the wave discovered it; a standalone run reads it. */
  snapshot?: VmSnapshot;
}

const VISIBILITY_POLL = { intervalMs: 2_000, timeoutMs: 10 * 60_000 };
const LEASE_MARGIN_MS = 15 * 60_000;

type LongActivities = ReturnType<typeof longActivities>;

/**
 * Moves one VM from vSphere to Proxmox: validate → networks → diskless shell with the VMware MACs →
 * storage vMotion onto the shared NFS datastore → wait for a person to approve → shut the guest down
 * and bring its disks in. Nothing on VMware is changed before the approval except the (live, reversible)
 * storage vMotion; after the shutdown, a failure waits for a person to retry or roll back.
 */
export async function migrateVm(input: MigrateVmInput): Promise<MigrateVmResult> {
  const wave = input.waveWorkflowId ? getExternalWorkflowHandle(input.waveWorkflowId) : undefined;
  const status = newStatus(input.moid);
  let seq = 0;
  try {
    return await migrate(input, status, (stage) => {
      seq += 1;
      if (wave) void wave.signal(vmStageSignal, { moid: input.moid, stage, at: workflowNow(), seq }).catch(() => undefined);
    });
  } catch (err) {
    status.error = failureMessage(err);
    throw err;
  } finally {
    if (wave) {
      await CancellationScope.nonCancellable(() =>
        wave
          .signal(vmFinishedSignal, {
            moid: input.moid,
            outcome: status.outcome,
            error: status.outcome ? undefined : (status.error ?? `failed in stage ${status.stage}`),
            actions: status.actions,
            timings: status.timings,
            imports: status.imports.map((i) => ({ bytes: i.bytes, seconds: i.seconds })),
          })
          .catch(() => undefined),
      );
    }
  }
}

function newStatus(moid: string): MigrationStatus {
  return {
    vm: moid,
    moid,
    stage: 'validate',
    actions: [],
    timings: [],
    waits: [],
    decisions: [],
    ignored: [],
    refusals: [],
    imports: [],
  };
}

async function migrate(
  input: MigrateVmInput,
  status: MigrationStatus,
  onStage: (stage: MigrationStage) => void,
): Promise<MigrateVmResult> {
  setHandler(migrationStatusQuery, () => status);
  upsertSearchAttributes([
    { key: FerryKind, value: 'migrate' },
    ...(input.waveId ? [{ key: WaveId, value: input.waveId }] : []),
  ]);
  const enter = (stage: MigrationStage) => {
    const now = workflowNow();
    const open = status.timings.at(-1);
    if (open && open.endedAt === undefined) open.endedAt = now;
    status.timings.push({ stage, startedAt: now });
    status.stage = stage;
    upsertSearchAttributes([{ key: FerryStage, value: stage }]);
    onStage(stage);
  };
  const record = (action: MigrationAction) => status.actions.push(action);
  const finish = (outcome: MigrateVmResult['outcome'], stage: MigrationStage): MigrateVmResult => {
    enter(stage);
    status.timings.at(-1)!.endedAt = status.timings.at(-1)!.startedAt;
    status.outcome = outcome;
    return { ...status, outcome };
  };
  const refuse = (refusals: Refusal[]): MigrateVmResult => {
    status.refusals = refusals;
    record({ kind: 'refuse', vm: status.vm, reasons: refusals.map((r) => r.reason) });
    return finish('refused', 'refused');
  };

  enter('validate');
  const settings = input.settings ?? (await reads.loadMigrationSettings());
  const acts = longActivities(timingOf(settings));
  const gate = new CutoverGate(status, settings.approvers);
  let throughput: Throughput = input.throughput ?? measuredThroughput([]);
  setHandler(importThroughputSignal, (t) => {
    throughput = t;
  });
  const planned: { assessment?: VmAssessment } = {};
  setHandler(cutoverPlanQuery, () =>
    planned.assessment ? cutoverPlan(planned.assessment, settings.cutover.mode, settings.targetStorage, throughput) : undefined,
  );

  // --- validate: what the VM is, and whether ferry can and may build it ---
  const snapshot = input.snapshot ?? (await reads.readVmForMigration({ moid: input.moid }));
  const assessed = assessInventory({ vms: [snapshot.vm], portgroups: snapshot.portgroups }, settings.rules);
  const assessment = assessed.vms[0]!;
  planned.assessment = assessment;
  status.vm = assessment.pveName;
  status.vmid = assessment.vmid;
  upsertSearchAttributes([
    { key: VmName, value: assessment.name },
    ...(assessment.vmid !== undefined ? [{ key: VmId, value: assessment.vmid }] : []),
  ]);
  if (assessment.refusals.length > 0) return refuse(assessment.refusals);
  const vmid = assessment.vmid!;
  const node = settings.node;
  const occupancy = vmidOccupancy(vmid, assessment.pveName, await reads.findPveVms({ vmid, name: assessment.pveName }));
  if (occupancy.kind === 'clash') return refuse([occupancy.refusal]);

  // --- networks: the VNets this VM needs exist (the wave usually made them already) ---
  enter('networks');
  const sdnState = await reads.readSdnState();
  const missing = missingVnetRefusals(assessed.vnetPlan, sdnState);
  if (missing.length > 0) return refuse(missing);
  if (sdnActions(assessed.vnetPlan, sdnState).length > 0) {
    const sdn = await executeChild(sdnSync, {
      workflowId: `${workflowInfo().workflowId}/sdn`,
      args: [{ zone: assessed.vnetPlan.zone, vnets: assessed.vnetPlan.vnets, permits: settings.limits.sdn, waveId: input.waveId, heartbeatTimeoutMs: settings.heartbeatTimeoutMs }],
    });
    status.actions.push(...sdn.actions);
  }

  // --- shell: a diskless VM with the VMware CPU, memory, firmware and MACs ---
  enter('shell');
  if (occupancy.kind === 'free') {
    const { created } = await acts.pve.createVmShell({
      node,
      params: shellCreateParams(assessment, { node, vcenter: settings.vcenter }),
    });
    if (created) record({ kind: 'create-vm', vm: assessment.pveName, vmid, node });
    status.waits.push(
      await pollUntil(async () => (await reads.waitVmVisible({ vmid })).visible, {
        what: `VM ${vmid} visible cluster-wide`,
        ...VISIBILITY_POLL,
      }),
    );
  }
  for (const action of nicActions(assessment, await reads.readPveConfig({ node, vmid }))) {
    if (action.kind !== 'set-nic') continue;
    await acts.pve.setNic({ node, vmid, slot: action.slot, value: action.value });
    record(action);
  }

  // --- relocate: storage vMotion onto the datastore Proxmox mounts, live, under a global limit ---
  enter('relocate');
  const diskDatastores = Object.fromEntries(snapshot.vm.disks.map((d) => [d.label, d.datastore?.name]));
  if (!filesOnDatastore(snapshot.datastores, diskDatastores, settings.migrationDatastore)) {
    // The permit is held for as long as the activity may retry (and rejoin its vMotion).
    const leaseMs = longScheduleToCloseMs(settings.relocateTimeoutMs) + LEASE_MARGIN_MS;
    await withPermit(
      { key: PERMIT_KEYS.vmotion, permits: settings.limits.vmotion, leaseMs, label: `relocate ${assessment.name}` },
      async ({ waitedMs }) => {
        status.waits.push({ for: 'vMotion permit', waitedMs });
        await acts.vmotion.relocateVm({ moid: input.moid, datastore: settings.migrationDatastore });
      },
    );
    record({ kind: 'relocate', vm: assessment.pveName, moid: input.moid, datastore: settings.migrationDatastore });
  }

  // --- approval: a person decides; nothing irreversible happens before ---
  enter('awaiting-approval');
  record({ kind: 'await-approval', vm: assessment.pveName });
  const approvalStarted = workflowNow();
  const deadline = settings.cutover.approvalDeadlineMs;
  const decided = deadline === undefined ? (await condition(() => gate.decided), true) : await condition(() => gate.decided, deadline);
  gate.closeApproval();
  status.waits.push({ for: 'cutover approval', waitedMs: workflowNow() - approvalStarted });
  if (!decided) return finish('approval-expired', 'approval-expired');
  if (gate.rejection) {
    status.rejection = gate.rejection;
    return finish('rejected', 'rejected');
  }
  status.approval = gate.approval;

  // --- cutover ---
  const fresh = await reads.rereadVm({ moid: input.moid });
  // The approval was for the VM as planned: a disk or NIC added, removed or re-addressed since then stops here.
  const changed = hardwareChanges(snapshot.vm, fresh);
  if (changed.length > 0) {
    return refuse([
      refusal('vm-changed', assessment.name, `${assessment.name} changed since it was planned: ${changed.join('; ')}; run the migration again to plan the VM as it is now`),
    ]);
  }
  const sources = diskSources(assessment, fresh, settings);
  if ('refusals' in sources) return refuse(sources.refusals);

  const asked = new Set<string>(); // slots this execution has asked to import (any attempt)
  for (;;) {
    try {
      // Inside the loop: a shutdown that times out is for a person to retry (then already off) or roll back.
      enter('shutdown');
      const shutdown = await acts.guest.shutdownGuest({
        moid: input.moid,
        timeoutMs: settings.cutover.shutdownTimeoutMs,
        force: settings.cutover.forcePowerOff,
      });
      if (shutdown.result !== 'already-off') record({ kind: 'shutdown-guest', vm: assessment.pveName, moid: input.moid });
      await bringDisksIn({ assessment, settings, acts, status, record, enter }, sources.byslot, asked);
      break;
    } catch (err) {
      // Past the shutdown the workflow does not guess: a person retries or rolls back.
      status.error = failureMessage(err);
      enter('awaiting-decision');
      gate.openDecision();
      const decisionStarted = workflowNow();
      await condition(() => gate.hasDecision);
      const decision = gate.takeDecision()!;
      status.waits.push({ for: `decision after failure (${decision.decision})`, waitedMs: workflowNow() - decisionStarted });
      if (decision.decision === 'rollback') {
        enter('rollback');
        await CancellationScope.nonCancellable(() => rollback(input.moid, node, assessment.pveName, vmid, status, acts));
        return finish('rolled-back', 'rolled-back');
      }
      status.error = undefined;
    }
  }
  return finish('migrated', 'done');
}

/** Per Proxmox slot: where its VMware disk is now, as a path and (if exported so) an import volume. */
type DiskSources = Record<string, { absolutePath: string; importVolume?: string; disk: string }>;

/**
 * Fresh disk paths (re-read after the vMotion) translated to what Proxmox sees. A disk that is not on
 * the migration datastore stops the cutover before the guest is touched.
 */
function diskSources(
  assessment: VmAssessment,
  fresh: { disks: Array<{ label: string; fileName: string; datastore?: { name: string } }> },
  settings: MigrationSettings,
): { byslot: DiskSources } | { refusals: Refusal[] } {
  const refusals: Refusal[] = [];
  const byslot: DiskSources = {};
  for (const planned of assessment.disks) {
    const disk = fresh.disks.find((d) => d.label === planned.source);
    if (!disk) {
      refusals.push({ code: 'disk-path-invalid', subject: planned.source, reason: `${planned.source} is no longer attached to the VMware VM` });
      continue;
    }
    if (disk.datastore?.name !== settings.migrationDatastore) {
      refusals.push({
        code: 'disk-unmapped-datastore',
        subject: planned.source,
        reason: `${planned.source} is on ${disk.datastore?.name ?? 'an unknown datastore'} (${disk.fileName}), not on the migration datastore ${settings.migrationDatastore}; the storage vMotion did not move it`,
      });
      continue;
    }
    const translated = translateDiskPath(disk, settings.datastores);
    if (!translated.ok) refusals.push(translated.refusal);
    else byslot[planned.slot] = { absolutePath: translated.absolutePath, importVolume: translated.importVolume, disk: planned.source };
  }
  return refusals.length > 0 ? { refusals } : { byslot };
}

/** What the cutover steps share: the VM, the settings, the activities and the run's status and records. */
interface Cutover {
  assessment: VmAssessment;
  settings: MigrationSettings;
  acts: LongActivities;
  status: MigrationStatus;
  record: (a: MigrationAction) => void;
  enter: (s: MigrationStage) => void;
}

async function bringDisksIn(cutover: Cutover, sources: DiskSources, asked: Set<string>): Promise<void> {
  const { assessment, settings, acts, status, record, enter } = cutover;
  const node = settings.node;
  const vmid = assessment.vmid!;
  const vm = assessment.pveName;
  const copies = acts.copies;
  const importPermit = (label: string) => ({
    key: PERMIT_KEYS.import(settings.targetStorage),
    permits: settings.limits.importPerStorage,
    leaseMs: longScheduleToCloseMs(settings.cutover.importTimeoutMs) + LEASE_MARGIN_MS,
    label,
  });

  if (settings.cutover.mode === 'live-import') {
    enter('import');
    await liveImport(cutover, sources, importPermit(`live import ${vm}`));
    await verifySizes(cutover);
    return;
  }

  enter('import');
  for (const planned of assessment.disks) {
    if (status.imports.some((i) => i.slot === planned.slot)) continue;
    const source = sources[planned.slot]!;
    // Asked before in this execution (an attempt that failed late): a disk found there now is ours.
    const askedBefore = asked.has(planned.slot);
    asked.add(planned.slot);
    const imported = await withPermit(importPermit(`import ${vm} ${planned.slot}`), async ({ waitedMs }) => {
      status.waits.push({ for: `import permit ${planned.slot}`, waitedMs });
      return copies.importDisk({ node, vmid, slot: planned.slot, source: source.importVolume ?? source.absolutePath, storage: settings.targetStorage });
    });
    const created = !imported.alreadyPresent || askedBefore;
    status.imports.push({ slot: planned.slot, disk: planned.source, volume: imported.volume, bytes: imported.bytes, seconds: imported.seconds, created });
    if (created) record({ kind: 'import-disk', vm, vmid, slot: planned.slot, disk: planned.source, storage: settings.targetStorage });
  }
  await verifySizes(cutover);
  const order = bootOrder(assessment);
  await acts.pve.setBootOrder({ node, vmid, order });
  record({ kind: 'set-boot-order', vm, vmid, order });
  if (settings.cutover.startAfter) await startVm(cutover);
}

/**
 * live-import: the disk-less shell made before the approval (it held the VMID and had PVE check every
 * setting) is replaced by one create with every disk `import-from` and live-restore. The VM boots at
 * once; the task, and so this call, ends when PVE has streamed the disks in. One task copies all the
 * VM's disks, so it holds one import permit.
 */
async function liveImport(cutover: Cutover, sources: DiskSources, permit: Parameters<typeof withPermit>[0]): Promise<void> {
  const { assessment, settings, acts, status, record } = cutover;
  const node = settings.node;
  const vmid = assessment.vmid!;
  const vm = assessment.pveName;
  const storage = settings.targetStorage;
  const from = Object.fromEntries(assessment.disks.map((d) => [d.slot, sources[d.slot]!.importVolume ?? sources[d.slot]!.absolutePath]));
  const params = liveImportCreateParams(assessment, { node, vcenter: settings.vcenter }, from, storage);
  const slots = assessment.disks.map((d) => d.slot);
  // Set before asking: a create that fails half-way still leaves a VM this workflow made (rollback destroys it).
  const replacedBefore = status.replacedVm === true;
  status.replacedVm = true;
  const result = await withPermit(permit, async ({ waitedMs }) => {
    status.waits.push({ for: 'import permit (live import)', waitedMs });
    return acts.copies.liveImportVm({ node, vmid, name: vm, params, slots, storage });
  });
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
  if (result.created) record({ kind: 'live-import', vm, vmid, node, slots, storage });
}

async function startVm({ assessment, settings, acts, record, enter }: Cutover): Promise<void> {
  enter('start');
  const vmid = assessment.vmid!;
  await withPermit(
    { key: PERMIT_KEYS.vmStart, permits: settings.limits.vmStart, leaseMs: 30 * 60_000, label: `start ${assessment.pveName}` },
    () => acts.pve.startVm({ node: settings.node, vmid }),
  );
  record({ kind: 'start-vm', vm: assessment.pveName, vmid });
}

/** Each disk arrived whole: its size in Proxmox equals the VMware capacity. */
async function verifySizes({ assessment, settings, enter }: Cutover): Promise<void> {
  enter('verify');
  const sizes = await reads.diskSizes({ node: settings.node, vmid: assessment.vmid! });
  const wrong = assessment.disks
    .filter((d) => sizes[d.slot] !== d.capacityBytes)
    .map((d) => `${d.slot} (${d.source}) is ${sizes[d.slot] ?? 'missing'} bytes, expected ${d.capacityBytes}`);
  if (wrong.length > 0) {
    throw ApplicationFailure.create({ type: 'DiskSizeMismatch', message: `disk sizes differ: ${wrong.join('; ')}`, nonRetryable: true });
  }
}

/**
 * Power the VMware VM back on, after making sure the Proxmox VM is off (both running would share MACs).
 * Only what this workflow created goes: its imported disks, or the VM its live import created (which
 * replaced the shell). Disks an earlier run imported stay, and are listed in `keptOnRollback`.
 */
async function rollback(moid: string, node: string, vm: string, vmid: number, status: MigrationStatus, acts: LongActivities): Promise<void> {
  const kept = status.imports
    .filter((i) => !i.created)
    .map((i) => `${i.slot} (${i.disk}): ${i.volume} was there before this workflow ran; left in place`);
  if (status.replacedVm) {
    await acts.pve.discardVm({ node, vmid, name: vm });
  } else {
    await acts.pve.stopVm({ node, vmid });
    const ours = status.imports.filter((i) => i.created).map((i) => i.slot);
    if (ours.length > 0) await acts.pve.removeDisks({ node, vmid, slots: ours });
  }
  status.imports = [];
  if (kept.length > 0) status.keptOnRollback = kept;
  await acts.guest.powerOnVm({ moid });
}
