import type { Command } from 'commander';
import { cancelMigrationUpdate, cancelWaveUpdate } from '../../src/domain/messages';
import { cancelEffect, cancelEffectText } from '../../src/domain/migration';
import type { GlobalOptions } from '../client';

interface CancelFlags {
  by: string;
  reason: string;
  removeShells?: boolean;
  wait?: boolean;
}

/**
 * ferry cancel <wave|vm>: a validated update, so a refusal (unknown person, ended run) is reported here
 * and changes nothing. What each VM does with it is in docs/migration.md#cancel.
 */
export function registerCancel(program: Command): void {
  program
    .command('cancel <target>')
    .description(
      'cancel a wave or one VM’s migration: before the shutdown it stops where it is (outcome cancelled); inside its cutover it waits for retry or rollback; target: VM name, wave id or workflow id',
    )
    .requiredOption('--by <name>', 'who cancels (must be an approver in ferry.yaml)')
    .requiredOption('--reason <text>', 'why (recorded in the workflow history and the result)')
    .option('--remove-shells', 'also remove the diskless shell VMs ferry built on Proxmox (kept by default)')
    .option('--wait', "when no worker polls the workflow's task queue, wait for one (else: say so and exit 1)")
    .action(async (target: string, flags: CancelFlags, cmd: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { WorkflowUpdateFailedError } = require('@temporalio/client') as typeof import('@temporalio/client');
      const { withClient } = require('../client') as typeof import('../client');
      const { resolveTarget } = require('../targets') as typeof import('../targets');
      const { requireWorker } = require('../worker-presence') as typeof import('../worker-presence');
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client) => {
        const handle = await resolveTarget(client, target, ['migrate', 'wave']);
        const description = await handle.describe();
        if (description.status.name !== 'RUNNING')
          throw new Error(`nothing to cancel: ${handle.workflowId} has ended (${description.status.name})`);
        await requireWorker(client, description.taskQueue, {
          wait: Boolean(flags.wait),
          what: `cancel of ${handle.workflowId}`,
        });
        const request = { by: flags.by, reason: flags.reason, ...(flags.removeShells ? { removeShells: true } : {}) };
        try {
          if (description.type === 'migrationWave') {
            const wave = await handle.executeUpdate(cancelWaveUpdate, { args: [request] });
            const notStarted = wave.vms.filter((vm) => vm.outcome === 'cancelled').length;
            const running = wave.vms.filter((vm) => vm.state === 'running').length;
            console.log(
              `cancel: accepted by ${handle.workflowId}: ${notStarted} VM(s) will not start, ${running} running VM(s) told to cancel`,
            );
          } else {
            const status = await handle.executeUpdate(cancelMigrationUpdate, { args: [request] });
            const effect = cancelEffect(status.cancellation?.stage ?? status.stage);
            console.log(
              `cancel: accepted by ${handle.workflowId} in stage ${status.cancellation?.stage ?? status.stage}: ${effect ? cancelEffectText(effect) : 'ended'}`,
            );
          }
        } catch (err) {
          if (err instanceof WorkflowUpdateFailedError)
            throw new Error(`cancel refused by ${handle.workflowId}: ${err.cause?.message ?? err.message}`);
          throw err;
        }
        console.log(`  follow:   ferry status ${handle.workflowId}`);
      });
    });
}
