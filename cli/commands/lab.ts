import path from 'node:path';
import type { Command } from 'commander';
import type { Lab } from '../../lab/lab';
import type { LabCommands } from '../../lab/sample-run';
import { intOption } from '../int-option';

interface LabFlags {
  port: number;
  uiPort: number;
  once?: boolean;
  fresh?: boolean;
}

export function registerLab(program: Command): void {
  program
    .command('lab')
    .description('start the embedded lab (Temporal dev server + UI, simulators, worker) and run the sample')
    .option('--port <port>', 'Temporal gRPC port', intOption(1, 65535), 7233)
    .option('--ui-port <port>', 'Temporal Web UI port', intOption(1, 65535), 8233)
    .option(
      '--once',
      'run the sample through to the end (provisioning, and the lab approves its own wave), print the result and stop',
    )
    .option('--fresh', 'keep no history between runs (in-memory Temporal)')
    .action(async (flags: LabFlags) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { Client, Connection } = require('@temporalio/client') as typeof import('@temporalio/client');
      const { startLab } = require('../../lab/lab') as typeof import('../../lab/lab');
      const { runSample } = require('../../lab/sample-run') as typeof import('../../lab/sample-run');
      const { finishLabWave } = require('../../lab/sample-migration') as typeof import('../../lab/sample-migration');
      const { finishSampleChange } = require('../../lab/sample-change') as typeof import('../../lab/sample-change');
      const lab = await startLab({ temporalPort: flags.port, uiPort: flags.uiPort, persist: !flags.fresh });
      let stopped: Promise<void> | undefined;
      const stop = () => {
        stopped ??= (async () => {
          console.log('lab: stopping…');
          await lab.stop();
        })();
        return stopped;
      };
      // Ctrl-C during the sample: its calls would wait for the stopped servers forever, so exit once stopped.
      let sampleDone = false;
      const interrupt = () =>
        void stop().then(() => {
          if (sampleDone) return;
          console.log('lab: stopped before the sample finished');
          process.exit(130);
        });
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);

      const commands = labCommands(lab);
      try {
        const connection = await Connection.connect({ address: lab.temporal.address });
        try {
          const client = new Client({ connection, namespace: lab.config.temporal.namespace });
          const sample = await runSample(client, lab.config, (line) => console.log(line), commands);
          if (flags.once) {
            // One command, the whole story: approve the lab wave as its approver and wait for the end.
            const finished = sample.wave
              ? await finishLabWave(client, sample.wave.waveId, (line) => console.log(line))
              : true;
            const provisioned = !sample.provisioned || sample.provisioned.vms.every((v) => v.outcome === 'provisioned');
            const changed = sample.change
              ? await finishSampleChange(client, sample.change, (line) => console.log(line))
              : true;
            if (!sample.doctor.ok || !finished || !provisioned || !changed) process.exitCode = 1;
          }
        } finally {
          await connection.close();
        }
      } catch (err) {
        // A failed sample must not leave the servers and simulators running behind the error.
        await stop();
        throw err;
      }
      sampleDone = true;
      if (flags.once) return stop();
      printTryThis(lab, commands);
      await lab.running;
      // The workers stop first; wait for the servers too before the process exits.
      await stop();
    });
}

/** Commands printed for another terminal: they use the lab's config file (ports, names), which holds no secrets. */
function labCommands(lab: Lab): LabCommands {
  const relative = path.relative(process.cwd(), lab.configFile);
  const file = relative.startsWith('..') || path.isAbsolute(relative) ? lab.configFile : relative;
  return {
    ferry: `FERRY_CONFIG=${shellQuote(file)} npm run ferry --`,
    temporalFlags: `--address ${lab.temporal.address}`,
  };
}

function shellQuote(value: string): string {
  return /^[\w./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function printTryThis(lab: Lab, commands: LabCommands): void {
  const t = '.tools/bin/temporal';
  const { address, uiUrl } = lab.temporal;
  const queue = lab.config.worker.taskQueue;
  console.log(`
ferry lab is running. Temporal UI: ${uiUrl ?? '(headless)'}   (Ctrl-C stops the lab)
Its configuration (no secrets): ${lab.configFile}

Try, in another terminal:
  ${commands.ferry} doctor
  ${t} workflow execute --address ${address} --type doctor --task-queue ${queue} --workflow-id doctor-by-hand
  ${t} workflow list --address ${address} --query "FerryKind='doctor'"
  ${t} workflow list --address ${address} --query "FerryKind='provision'"
  ${commands.ferry} list --kind provision
`);
}
