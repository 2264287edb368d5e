import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { startLab } from '../../lab/lab';
import { runSample } from '../../lab/sample-run';

interface LabFlags {
  port: string;
  uiPort: string;
  once?: boolean;
  fresh?: boolean;
}

export function registerLab(program: Command): void {
  program
    .command('lab')
    .description('start the embedded lab (Temporal dev server + UI, simulators, worker) and run the sample')
    .option('--port <port>', 'Temporal gRPC port', '7233')
    .option('--ui-port <port>', 'Temporal Web UI port', '8233')
    .option('--once', 'run the sample, print the result and stop (no waiting for Ctrl-C)')
    .option('--fresh', 'keep no history between runs (in-memory Temporal)')
    .action(async (flags: LabFlags) => {
      const lab = await startLab({
        temporalPort: Number(flags.port),
        uiPort: Number(flags.uiPort),
        persist: !flags.fresh,
      });
      let stopping = false;
      const stop = async () => {
        if (stopping) return;
        stopping = true;
        console.log('lab: stopping…');
        await lab.stop();
      };
      process.once('SIGINT', () => void stop());
      process.once('SIGTERM', () => void stop());

      const connection = await Connection.connect({ address: lab.temporal.address });
      try {
        const sample = await runSample(new Client({ connection }), lab.config.worker.taskQueue, (line) => console.log(line));
        if (flags.once) {
          await stop();
          if (!sample.doctor.ok) process.exitCode = 1;
          return;
        }
      } finally {
        await connection.close();
      }
      printTryThis(lab.temporal.address, lab.temporal.uiUrl);
      await lab.running;
    });
}

function printTryThis(address: string, uiUrl?: string): void {
  const t = '.tools/bin/temporal';
  console.log(`
ferry lab is running. Temporal UI: ${uiUrl ?? '(headless)'}   (Ctrl-C stops the lab)

Try, in another terminal:
  npm run ferry -- doctor
  ${t} workflow execute --address ${address} --type doctor --task-queue ferry --workflow-id doctor-by-hand
  ${t} workflow list --address ${address} --query "FerryKind='doctor'"
`);
}
