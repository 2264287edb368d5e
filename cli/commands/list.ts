import type { Command } from 'commander';
import { FERRY_KINDS, FerryKind, FerryStage, VmId, VmName, WaveId } from '../../src/domain/search-attributes';
import { UsageError } from '../errors';
import type { GlobalOptions } from '../client';
import { intOption } from '../int-option';

interface ListFlags {
  kind?: string;
  running?: boolean;
  limit: number;
}

/** Running and recent ferry workflows, from Temporal visibility (search attributes). */
export function registerList(program: Command): void {
  program
    .command('list')
    .description('running and recent ferry workflows')
    .option('--kind <kind>', FERRY_KINDS.join(', '))
    .option('--running', 'only running workflows')
    .option('--limit <n>', 'at most this many', intOption(1, 10_000), 50)
    .action(async (flags: ListFlags, cmd: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { withClient } = require('../client') as typeof import('../client');
      const clauses = ['FerryKind IS NOT NULL'];
      if (flags.kind !== undefined) {
        if (!(FERRY_KINDS as readonly string[]).includes(flags.kind))
          throw new UsageError(`--kind: unknown kind "${flags.kind}"; one of ${FERRY_KINDS.join(', ')}`);
        clauses.push(`FerryKind = '${flags.kind}'`);
      }
      if (flags.running) clauses.push("ExecutionStatus = 'Running'");
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client) => {
        let count = 0;
        for await (const wf of client.workflow.list({ query: clauses.join(' AND ') })) {
          const sa = wf.typedSearchAttributes;
          const vm = sa.get(VmName) ?? sa.get(WaveId) ?? '';
          const vmid = sa.get(VmId);
          console.log(
            [
              wf.startTime.toISOString().slice(0, 19),
              wf.status.name.padEnd(10),
              String(sa.get(FerryKind) ?? '').padEnd(10),
              String(sa.get(FerryStage) ?? '').padEnd(18),
              `${vm}${vmid !== undefined ? ` (${vmid})` : ''}`.padEnd(24),
              wf.workflowId,
            ].join('  '),
          );
          if (++count >= flags.limit) break;
        }
        if (count === 0) console.log('no ferry workflows');
      });
    });
}
