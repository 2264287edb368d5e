import type { Command } from 'commander';
import { coordinationQueue } from '../../src/domain/task-queues';
import type { migrationWave } from '../../workflows/migration-wave';
import { FerryKind, WaveId } from '../../src/domain/search-attributes';
import { selectionSummary } from '../../src/domain/migration';
import type { ConversionMode } from '../../src/domain/conversion';
import type { GlobalOptions } from '../client';
import { UsageError } from '../errors';
import { intOption } from '../int-option';
import { selectionFrom, showPlan } from './plan';
import { selectionOptions, type SelectionFlags } from './selection';

interface MigrateFlags extends SelectionFlags {
  vm?: string;
  wave?: string;
  waveId?: string;
  maxConcurrent?: number;
  conversion?: string;
  dryRun?: boolean;
  json?: boolean;
}

export function waveWorkflowId(waveId: string): string {
  return `wave-${waveId}`;
}

export function registerMigrate(program: Command): void {
  const command = program
    .command('migrate')
    .description(
      'start a migration wave (one VM with --vm, a wave file with --wave, or a selection); cutovers wait for `ferry approve`',
    )
    .option('--vm <vm>', 'migrate one VM: its name, moid (vm-123) or inventory path (/DC0/vm/apps/web01)')
    .option('--wave <file>', 'wave file (YAML: waveId, selection, maxConcurrent, cutoverWindow, conversion)')
    .option('--wave-id <id>', 'wave id (default: from the file, or the VM name)')
    .option('--max-concurrent <n>', "VM workflows at once (default: the wave file's, else 50)", intOption(1, 1000))
    .option(
      '--conversion <mode>',
      "guest conversion for this wave: off, linux or all (default: the wave file's, else migration.conversion.mode)",
    )
    .option('--dry-run', 'start nothing: show the plan of this wave (the same as `ferry plan` over its selection)')
    .option('--json', 'with --dry-run: print the plan as JSON');
  selectionOptions(command).action(async (flags: MigrateFlags, cmd: Command) => {
    // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
    const { withClient } = require('../client') as typeof import('../client');
    const { readWaveFile } = require('../wave-file') as typeof import('../wave-file');
    const { warnWithoutWorker } = require('../worker-presence') as typeof import('../worker-presence');
    const { reportDiscovery } = require('../wave-discovery') as typeof import('../wave-discovery');
    const selectionFlags = (['names', 'folder', 'cluster', 'tag'] as const)
      .filter((k) => flags[k] !== undefined)
      .map((k) => `--${k}`);
    const sources = [
      ...(flags.vm !== undefined ? ['--vm'] : []),
      ...(flags.wave !== undefined ? ['--wave'] : []),
      ...(selectionFlags.length ? [selectionFlags.join('/')] : []),
    ];
    if (sources.length > 1)
      throw new UsageError(
        `say what to migrate one way: ${sources.join(' and ')} do not go together (--vm NAME, --wave FILE, or --names/--folder/--cluster/--tag)`,
      );
    const file = flags.wave ? readWaveFile(flags.wave) : undefined;
    const selection = file?.selection ?? (flags.vm ? { names: [flags.vm] } : selectionFrom(flags));
    if (!selection.names && !selection.folder && !selection.cluster && !selection.tag) {
      throw new UsageError('say what to migrate: --vm NAME, --wave FILE, or --names/--folder/--cluster/--tag');
    }
    if (flags.dryRun) return showPlan(selection, cmd.optsWithGlobals<GlobalOptions>(), { json: flags.json });
    // A VM named by its inventory path (`/DC0/vm/apps/web01`) gives a wave id without slashes.
    const waveId =
      flags.waveId ??
      file?.waveId ??
      (flags.vm ? `vm-${flags.vm.replace(/^\/+/, '').replace(/[^A-Za-z0-9._-]+/g, '-')}` : undefined);
    if (!waveId) throw new UsageError('--wave-id is required with --names/--folder/--cluster/--tag');
    const maxConcurrent = flags.maxConcurrent ?? file?.maxConcurrent;
    if (flags.conversion !== undefined && !['off', 'linux', 'all'].includes(flags.conversion)) {
      throw new UsageError(
        `--conversion: "${flags.conversion}" is not a mode: off, linux (Linux guests) or all (Windows too)`,
      );
    }
    const conversion = (flags.conversion ?? file?.conversion) as ConversionMode | undefined;
    const workflowId = waveWorkflowId(waveId);
    await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client, config) => {
      // Waves run on the coordination queue (own worker slots and cache); their VMs on the main queue.
      const taskQueue = coordinationQueue(config.worker.taskQueue);
      const handle = await client.workflow.start<typeof migrationWave>('migrationWave', {
        taskQueue,
        workflowId,
        args: [
          {
            waveId,
            selection,
            maxConcurrent,
            ...(file?.cutoverWindow ? { cutoverWindow: file.cutoverWindow } : {}),
            ...(conversion ? { conversion } : {}),
          },
        ],
        // Starting the same wave twice finds the running one.
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: [
          { key: FerryKind, value: 'wave' },
          { key: WaveId, value: waveId },
        ],
        staticSummary: `wave ${waveId}: ${selectionSummary(selection)}`,
        staticDetails: `migration wave ${waveId}; follow it with: ferry status ${workflowId} --watch`,
      });
      console.log(`wave ${waveId}: workflow ${handle.workflowId} (run ${handle.firstExecutionRunId})`);
      console.log(`  watch:    ferry status ${workflowId} --watch`);
      console.log(`  approve:  ferry approve ${workflowId} --by <approver> --reason "<why>"`);
      // With a worker, say what the wave took (or why it took nothing) before returning.
      if (await warnWithoutWorker(client, taskQueue, `wave ${waveId}`)) await reportDiscovery(client, workflowId);
    });
  });
}
