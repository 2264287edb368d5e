import type { PlanChangeResult, planChange } from '../../workflows/plan-change';
import type { GlobalOptions } from '../client';
import { UsageError } from '../errors';

export interface ChangePlanFlags {
  change?: boolean;
  netboxId?: number;
  names?: string;
  folder?: string;
  cluster?: string;
  tag?: string;
  inspect?: boolean;
}

/** `--change` takes `--netbox-id` and nothing of the migration plan's selection. */
export function checkChangePlanFlags(flags: ChangePlanFlags): number | undefined {
  if (!flags.change) {
    if (flags.netboxId !== undefined) throw new UsageError('--netbox-id goes with --change (the day-2 change plan)');
    return undefined;
  }
  const migration = ['names', 'folder', 'cluster', 'tag'].filter(
    (f) => flags[f as keyof ChangePlanFlags] !== undefined,
  );
  if (migration.length)
    throw new UsageError(
      `--change plans one NetBox VM (--netbox-id N); ${migration.map((f) => `--${f}`).join(', ')} select VMware VMs for a migration plan`,
    );
  if (flags.inspect === false) throw new UsageError('--no-inspect is for the migration plan, not --change');
  if (flags.netboxId === undefined) throw new UsageError('--change needs the NetBox VM: --netbox-id N');
  return flags.netboxId;
}

/**
 * `ferry plan --change --netbox-id N`: runs `planChange` (the worker reads NetBox and Proxmox, writes
 * nothing) and prints the plan `changeVm` would carry out now.
 */
export async function showChangePlan(
  netboxId: number,
  globals: GlobalOptions,
  flags: { json?: boolean; wait?: boolean },
): Promise<void> {
  // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
  const { withClient } = require('../client') as typeof import('../client');
  const { requireWorker } = require('../worker-presence') as typeof import('../worker-presence');
  const { awaitResult } = require('../workflow-result') as typeof import('../workflow-result');
  const { renderChangePlan } = require('../render-change') as typeof import('../render-change');
  const result: PlanChangeResult = await withClient(globals, async (client, config) => {
    await requireWorker(client, config.worker.taskQueue, { wait: Boolean(flags.wait), what: 'the change plan' });
    const handle = await client.workflow.start<typeof planChange>('planChange', {
      taskQueue: config.worker.taskQueue,
      workflowId: `plan-change-${netboxId}-${new Date().toISOString().replace(/[:.]/g, '')}`,
      args: [{ netboxId }],
      staticSummary: `ferry plan --change --netbox-id ${netboxId}`,
    });
    return awaitResult<typeof planChange>(handle);
  });
  if (flags.json) return void console.log(JSON.stringify(result, null, 2));
  console.log(renderChangePlan(result).join('\n'));
}
