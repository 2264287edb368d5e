import type { Client } from '@temporalio/client';
import type { Command } from 'commander';
import { placeVmUpdate } from '../../src/domain/messages';
import type { MigrationStatus } from '../../src/domain/migration';
import type { PlaceRequest } from '../../src/domain/placement';
import type { GlobalOptions } from '../client';

interface PlaceFlags {
  node: string;
  storage?: string;
  by: string;
  reason: string;
  wait?: boolean;
}

/**
 * Asks the VM's migration workflow to move to another node (and storage). The workflow validates the
 * request and checks the node against capacity it reads; a refusal comes back as an error naming why,
 * with the numbers. Shared by `ferry place` and the tests.
 */
export async function placeVm(
  client: Client,
  target: string,
  request: PlaceRequest,
  options: { wait?: boolean } = {},
): Promise<{ workflowId: string; status: MigrationStatus }> {
  const { WorkflowUpdateFailedError } = require('@temporalio/client') as typeof import('@temporalio/client');
  const { resolveTarget } = require('../targets') as typeof import('../targets');
  const { requireWorker } = require('../worker-presence') as typeof import('../worker-presence');
  const handle = await resolveTarget(client, target, ['migrate']);
  const description = await handle.describe();
  if (description.status.name !== 'RUNNING')
    throw new Error(`nothing to place: ${handle.workflowId} has ended (${description.status.name})`);
  await requireWorker(client, description.taskQueue, {
    wait: Boolean(options.wait),
    what: `ferry place of ${handle.workflowId}`,
  });
  try {
    return { workflowId: handle.workflowId, status: await handle.executeUpdate(placeVmUpdate, { args: [request] }) };
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError)
      throw new Error(`place refused by ${handle.workflowId}: ${err.cause?.message ?? err.message}`);
    throw err;
  }
}

/** ferry place <vm> --node N [--storage S]: see docs/cli.md and docs/migration.md#placement. */
export function registerPlace(program: Command): void {
  program
    .command('place <vm>')
    .description(
      'move a VM that waits before its cutover (before its shell exists, or at the approval gate) to another Proxmox node, and its disks to another storage; checked against the node’s capacity; vm: VM name or workflow id',
    )
    .requiredOption('--node <node>', 'the Proxmox node to build the VM on')
    .option(
      '--storage <storage>',
      'import every disk onto this storage (default: each disk keeps the storage placement chose)',
    )
    .requiredOption('--by <name>', 'who moves it (must be an approver in ferry.yaml)')
    .requiredOption('--reason <text>', 'why (recorded in the workflow history and the status)')
    .option('--wait', "when no worker polls the workflow's task queue, wait for one (else: say so and exit 1)")
    .action(async (target: string, flags: PlaceFlags, cmd: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { withClient } = require('../client') as typeof import('../client');
      const { describePlacement } = require('../render-placement') as typeof import('../render-placement');
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client) => {
        const request: PlaceRequest = {
          node: flags.node,
          by: flags.by,
          reason: flags.reason,
          ...(flags.storage ? { storage: flags.storage } : {}),
        };
        const { workflowId, status } = await placeVm(client, target, request, { wait: flags.wait });
        const move = status.placementMoves?.at(-1);
        console.log(
          `place: accepted by ${workflowId}: ${status.vm} now on ${status.placement ? describePlacement(status.placement) : flags.node}${move?.shellMoved ? ' (shell re-created there)' : ''}`,
        );
        console.log(`  follow:   ferry status ${workflowId}`);
      });
    });
}
