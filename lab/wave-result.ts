import type { Client, WorkflowHandle } from '@temporalio/client';
import { migrationStatusQuery } from '../src/domain/messages';
import {
  unpackWaveStatus,
  type MigrationAction,
  type MigrationStatus,
  type WaveStatus,
  type WaveVm,
} from '../src/domain/migration';
import type { MigrationWaveResult } from '../workflows/migration-wave';

/** A finished wave as the lab, the chaos run, the benchmarks and the tests look at it: every VM and every action. */
export interface WaveOutcome {
  /** The wave's status with its VMs as objects. */
  status: WaveStatus;
  /** The wave's own actions, then each VM's as its own workflow recorded them, in the form `plan` predicts them. */
  actions: MigrationAction[];
  sdn: MigrationWaveResult['sdn'];
}

/**
 * Waits for the wave's result and reads each started VM's actions from its own workflow: the wave's
 * result holds a compact row per VM, not the VMs' actions (see docs/benchmarks.md, Margins).
 */
export async function readWaveOutcome(client: Client, wave: WorkflowHandle): Promise<WaveOutcome> {
  const result = (await wave.result()) as MigrationWaveResult;
  const status = unpackWaveStatus(result.status);
  return { status, actions: [...result.waveActions, ...(await vmActions(client, status.vms))], sdn: result.sdn };
}

/** Each VM's recorded actions, from its workflow's result (or, failed, its status query), in the wave's order. */
export async function vmActions(client: Client, vms: readonly WaveVm[]): Promise<MigrationAction[]> {
  const started = vms.filter(startedByTheWave);
  const lists = await Promise.all(started.map((vm) => actionsOf(client, vm.workflowId)));
  return lists.flat();
}

/** The VM's actions as its workflow recorded them; none when it has neither a result nor answers its status. */
export async function actionsOf(client: Client, workflowId: string): Promise<MigrationAction[]> {
  const own = await client.workflow
    .getHandle(workflowId)
    .result()
    .then(
      (result) => (result as MigrationStatus).actions,
      () => queriedActions(client, workflowId),
    );
  return own ?? [];
}

/** A VM workflow without a result (failed) still answers its status query with the actions it took. */
export async function queriedActions(client: Client, workflowId: string): Promise<MigrationAction[]> {
  const status = await client.workflow
    .getHandle(workflowId)
    .query(migrationStatusQuery)
    .catch(() => undefined);
  return status?.actions ?? [];
}

/** A VM whose workflow the wave started (not one it found taken by another run: `not started: …`). */
export function startedByTheWave(vm: WaveVm): boolean {
  return vm.startedAt !== undefined && !vm.error?.startsWith('not started:');
}
