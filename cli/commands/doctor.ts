import type { Command } from 'commander';
import type { doctor } from '../../workflows/doctor';
import { formatVerdict } from '../../src/domain/doctor';
import { withClient, type GlobalOptions } from '../client';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check every configured endpoint (Temporal, Proxmox, vCenter, NetBox, DNS) through the worker')
    .option('--json', 'print the report as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const report = await withClient(globals, (client, config) =>
        client.workflow.execute<typeof doctor>('doctor', {
          taskQueue: config.worker.taskQueue,
          workflowId: `doctor-${new Date().toISOString().replace(/[:.]/g, '')}`,
          staticSummary: 'ferry doctor',
        }),
      );
      if (options.json) console.log(JSON.stringify(report, null, 2));
      else for (const v of report.verdicts) console.log(formatVerdict(v));
      if (!report.ok) process.exitCode = 1;
    });
}
