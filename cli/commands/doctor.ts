import type { Command } from 'commander';
import type { doctor } from '../../workflows/doctor';
import { formatVerdict } from '../../src/domain/doctor';
import type { GlobalOptions } from '../client';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check every configured endpoint (Temporal, Proxmox, vCenter, NetBox, DNS) through the worker')
    .option('--json', 'print the report as JSON')
    .option('--wait', 'when no worker polls the task queue, wait for one (else: say so and exit 1)')
    .action(async (options: { json?: boolean; wait?: boolean }, command: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { withClient } = require('../client') as typeof import('../client');
      const { requireWorker } = require('../worker-presence') as typeof import('../worker-presence');
      const globals = command.optsWithGlobals<GlobalOptions>();
      const report = await withClient(globals, async (client, config) => {
        // The checks run in the worker (it holds the secrets): without one, there is nothing to ask.
        await requireWorker(client, config.worker.taskQueue, { wait: Boolean(options.wait), what: 'the doctor' });
        return client.workflow.execute<typeof doctor>('doctor', {
          taskQueue: config.worker.taskQueue,
          workflowId: `doctor-${new Date().toISOString().replace(/[:.]/g, '')}`,
          staticSummary: 'ferry doctor',
        });
      });
      if (options.json) console.log(JSON.stringify(report, null, 2));
      else for (const v of report.verdicts) console.log(formatVerdict(v));
      if (!report.ok) process.exitCode = 1;
    });
}
