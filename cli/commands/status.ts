import type { Command } from 'commander';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { GlobalOptions } from '../client';
import { intOption } from '../int-option';
import { WAVE_ROWS_DEFAULT, WAVE_ROWS_MAX } from '../../src/domain/status/rows';
import type { StatusView } from '../../src/domain/status';
import type { LoadOptions } from '../status-view/load';

interface StatusFlags {
  watch?: boolean;
  wait?: boolean;
  json?: boolean;
  full?: boolean;
  attention?: boolean;
  page: number;
  pageSize: number;
  interval: number;
}

/** Every ferry workflow answers the `status` query; a wave its summary. This prints it, with the progress its running activities heartbeat. */
export function registerStatus(program: Command): void {
  program
    .command('status <target>')
    .description(
      'stage, steps done, waits and errors of a workflow (VM name, wave id or workflow id); a wave: counts, ETA and a page of VMs',
    )
    .option(
      '--watch',
      'refresh until the workflow ends: on a terminal in place (progress bars of vMotions and imports), else a line per change',
    )
    .option('--interval <seconds>', 'refresh interval with --watch', intOption(1, 3600), 2)
    .option('--json', 'print the status as JSON (the shape in docs/cli.md)')
    .option('--page <n>', 'a wave: which page of VMs (those needing a person first)', intOption(1, 1_000_000), 1)
    .option(
      '--page-size <n>',
      `a wave: VMs per page (at most ${WAVE_ROWS_MAX})`,
      intOption(1, WAVE_ROWS_MAX),
      WAVE_ROWS_DEFAULT,
    )
    .option('--attention', 'a wave: only the VMs that wait for a person or failed')
    .option('--full', 'a wave: also its full status (every VM; large for a big wave)')
    .option('--wait', "when no worker polls the workflow's task queue, wait for one (else: say so and exit 1)")
    .action(async (target: string, flags: StatusFlags, cmd: Command) => {
      // Loaded when the command runs, so that `ferry --help` and the other commands do not pay for it.
      const { withClient } = require('../client') as typeof import('../client');
      const { resolveDescribedTarget } = require('../targets') as typeof import('../targets');
      const { NoWorkerError, noWorkerLine, requireWorker } =
        require('../worker-presence') as typeof import('../worker-presence');
      const { loadStatus } = require('../status-view/load') as typeof import('../status-view/load');
      const { watcher } = require('../status-view/watch') as typeof import('../status-view/watch');
      const { renderStatus } = require('../status-view/render-status') as typeof import('../status-view/render-status');
      await withClient(cmd.optsWithGlobals<GlobalOptions>(), async (client) => {
        const resolved = await resolveDescribedTarget(client, target);
        const handle = resolved.handle;
        // Resolving a workflow id described it: the first view uses that description, not a second RPC.
        let described = resolved.description;
        const options: LoadOptions = {
          page: {
            offset: (flags.page - 1) * flags.pageSize,
            limit: flags.pageSize,
            filter: flags.attention ? 'attention' : 'all',
          },
          full: flags.full,
        };
        const out = flags.watch && !flags.json ? watcher((view) => renderStatus(view)) : undefined;
        try {
          for (;;) {
            let view = await loadStatus(client, handle, { ...options, description: described });
            described = undefined;
            if (view.noWorker !== undefined) {
              // Its status needs a worker to answer the query: say so now, rather than wait in silence.
              if (!flags.wait) {
                if (flags.json) console.log(JSON.stringify(view, null, 2));
                else console.log(renderStatus(view));
                throw new NoWorkerError(
                  `${noWorkerLine(client, view.noWorker, `the status of ${handle.workflowId}`)}; or pass --wait to wait for one`,
                );
              }
              await requireWorker(client, view.noWorker, { wait: true, what: `the status of ${handle.workflowId}` });
              view = await loadStatus(client, handle, options);
            }
            if (flags.json) console.log(JSON.stringify(view, null, 2));
            else if (out) out.show(view);
            else console.log(renderStatus(view));
            if (!flags.watch || view.state !== 'RUNNING') return;
            await new Promise((r) => setTimeout(r, flags.interval * 1000));
          }
        } finally {
          out?.done();
        }
      });
    });
}

export type { StatusView };

/** A workflow's status (a wave: its summary), as `status` shows it. */
export function statusView(client: Client, handle: WorkflowHandle): Promise<StatusView> {
  const { loadStatus } = require('../status-view/load') as typeof import('../status-view/load');
  return loadStatus(client, handle);
}

/** For other commands that print a workflow's status once (loaded when they run). */
export function renderStatus(view: StatusView): string {
  const { renderStatus: render } =
    require('../status-view/render-status') as typeof import('../status-view/render-status');
  return render(view);
}
