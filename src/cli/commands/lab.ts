import type { Command } from 'commander';
import { Client, Connection } from '@temporalio/client';
import { startLab } from '../../lab/lab';
import { runSample } from '../../lab/sample-run';
import { finishLabWave } from '../../lab/sample-migration';

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
    .option('--once', 'run the sample through to the end (provisioning, and the lab approves its own wave), print the result and stop')
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
        const client = new Client({ connection });
        const sample = await runSample(client, lab.config, (line) => console.log(line));
        if (flags.once) {
          // One command, the whole story: approve the lab wave as its approver and wait for the end.
          const finished = sample.wave ? await finishLabWave(client, sample.wave.waveId, (line) => console.log(line)) : true;
          await stop();
          const provisioned = !sample.provisioned || sample.provisioned.vms.every((v) => v.outcome === 'provisioned');
          if (!sample.doctor.ok || !finished || !provisioned) process.exitCode = 1;
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
  ${t} workflow list --address ${address} --query "FerryKind='provision'"
  npm run ferry -- list --kind provision
`);
}
