import type { Client } from '@temporalio/client';
import { coordinationQueue } from '../src/domain/task-queues';
import type { migrationWave } from '../workflows/migration-wave';
import type { planMigration } from '../workflows/plan-migration';
import { approveWaveUpdate, cutoverPlanQuery, waveStatusQuery } from '../src/domain/messages';
import { describeConversion } from '../src/domain/conversion';
import { describeVerification, unpackWaveStatus, type WaveStatus } from '../src/domain/migration';
import { FerryKind, WaveId } from '../src/domain/search-attributes';
import { LAB_APPROVERS } from './migration-lab';
import { labRunStamp } from './vcsim/vcsim-lab';
import type { LabCommands } from './sample-run';

/** The lab estate's VMs (named ones and the scale ones). */
export const LAB_WAVE_SELECTION = { folder: '/DC0/vm' };

export function labWaveId(): string {
  return `lab-${labRunStamp()}`;
}

/**
 * The migration part of the lab's sample run: a plan of the lab estate, then a wave that builds the
 * networks and shells and moves the disks onto the shared NFS datastore, and stops where a person
 * approves the cutover.
 */
export async function runSampleMigration(
  client: Client,
  taskQueue: string,
  log: (line: string) => void,
  commands: LabCommands,
): Promise<WaveStatus> {
  const waveId = labWaveId();
  // Without inspecting the guests (an appliance boot each under TCG): the wave inspects them before its
  // approval gate, where the lab prints what conversion will do.
  const plan = await client.workflow.execute<typeof planMigration>('planMigration', {
    taskQueue,
    workflowId: `plan-${waveId}`,
    args: [LAB_WAVE_SELECTION, { inspect: false }],
    staticSummary: 'lab sample: plan of the lab estate',
  });
  const refused = plan.vms.filter((v) => v.refusals.length > 0);
  log(`lab: plan: ${plan.vms.length} VMs, ${plan.actions.length} actions; ${refused.length} not translatable:`);
  for (const vm of refused) log(`  ${vm.name}: ${vm.refusals.map((r) => r.reason).join('; ')}`);

  const workflowId = `wave-${waveId}`;
  const wave = await client.workflow.start<typeof migrationWave>('migrationWave', {
    taskQueue: coordinationQueue(taskQueue),
    workflowId,
    args: [{ waveId, selection: LAB_WAVE_SELECTION }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: [
      { key: FerryKind, value: 'wave' },
      { key: WaveId, value: waveId },
    ],
    staticSummary: `lab sample: migration wave ${waveId}`,
  });
  let status: WaveStatus;
  for (;;) {
    status = await wave.query(waveStatusQuery).catch(() => undefined as unknown as WaveStatus);
    if (
      status &&
      status.stage === 'migrating' &&
      status.vms.every((v) => v.state === 'finished' || v.stage === 'awaiting-approval')
    )
      break;
    if (status?.stage === 'done') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  log(`lab: wave ${waveId}: ${status.vms.length} VMs waiting for approval (shells built, disks on nfs-migration)`);
  for (const vm of status.vms) {
    const cutover = await client.workflow
      .getHandle(vm.workflowId)
      .query(cutoverPlanQuery)
      .catch(() => undefined);
    if (!cutover?.conversion || (!cutover.conversion.convert && cutover.conversion.code === 'off')) continue;
    log(`  ${vm.name}: ${describeConversion(cutover.conversion).join('\n  ')}`);
  }
  log(`  approve:  ${commands.ferry} approve ${workflowId} --by ${LAB_APPROVERS[0]} --reason "lab cutover"`);
  log(
    `  or:       .tools/bin/temporal workflow update execute${commands.temporalFlags ? ` ${commands.temporalFlags}` : ''} --workflow-id ${workflowId} --name ${approveWaveUpdate.name} --input '{"by":"${LAB_APPROVERS[0]}","reason":"lab cutover"}'`,
  );
  log(`  watch:    ${commands.ferry} status ${workflowId} --watch`);
  return status;
}

/** `ferry lab --once`: approves the lab wave as the lab's approver and waits for it; true if every VM ended as planned. */
export async function finishLabWave(client: Client, waveId: string, log: (line: string) => void): Promise<boolean> {
  const wave = client.workflow.getHandle<typeof migrationWave>(`wave-${waveId}`);
  await wave.executeUpdate(approveWaveUpdate, { args: [{ by: LAB_APPROVERS[0]!, reason: 'ferry lab --once' }] });
  const status = unpackWaveStatus((await wave.result()).status);
  for (const vm of status.vms) {
    const verified = vm.verification ? `  ${describeVerification({ ...vm.verification, checks: [] })}` : '';
    const why = vm.refusal ? `: ${vm.refusal}` : '';
    log(`  ${vm.name.padEnd(14)} ${vm.outcome ?? vm.error ?? vm.state}${why}${verified}`);
  }
  const migrated = status.vms.filter((v) => v.outcome === 'migrated').length;
  const rolledBack = status.vms.filter((v) => v.outcome === 'rolled-back').length;
  log(
    `lab: wave ${waveId}: ${migrated} migrated, ${rolledBack} rolled back after a failed guest check, ` +
      `${status.vms.length - migrated - rolledBack} refused by their own workflow, ${status.refused.length} not translatable`,
  );
  // Every guest comes up as itself: the VMware-native ones converted, the lab image's as they are.
  return status.vms.every((v) => v.outcome === 'migrated' || v.outcome === 'refused');
}
