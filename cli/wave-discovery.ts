import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { waveSummaryQuery } from '../src/domain/messages';
import type { migrationWave } from '../workflows/migration-wave';
import { rootCauseMessage } from './workflow-result';

/** How long `ferry migrate` waits for the wave to discover its VMs before it leaves the wave to `status`. */
export const DISCOVERY_WAIT_MS = 60_000;
const POLL_MS = 500;

/** The wave refused its selection (a name not found or ambiguous, a tag vCenter lacks): nothing was built. */
export class SelectionRefused extends Error {
  override name = 'SelectionRefused';
}

/**
 * After `ferry migrate` started a wave (and a worker serves it): waits until the wave has discovered its
 * VMs, then says what it takes and what it refused, so the command tells what happened. A wave that
 * failed at discovery is reported with its reason (SelectionRefused: exit code 1). After `timeoutMs` it
 * says that discovery is still running and where to follow it.
 */
export async function reportDiscovery(
  client: Client,
  workflowId: string,
  timeoutMs = DISCOVERY_WAIT_MS,
): Promise<void> {
  const handle = client.workflow.getHandle<typeof migrationWave>(workflowId);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status } = await handle.describe();
    if (status.name === 'COMPLETED') {
      const { vmTable, refused } = (await handle.result()).status;
      return selected(workflowId, vmTable.rows.length, refused.length);
    }
    if (status.name !== 'RUNNING') {
      let reason = `it ended ${status.name}`;
      await handle.result().catch((err: unknown) => (reason = rootCauseMessage(err)));
      throw new SelectionRefused(`wave ${workflowId} started nothing: ${reason}`);
    }
    const summary = await handle.query(waveSummaryQuery).catch(() => undefined);
    if (summary && summary.stage !== 'discover') return selected(workflowId, summary.vms, summary.refused);
    if (Date.now() > deadline) {
      console.log(
        `  still discovering after ${Math.round(timeoutMs / 1000)} s: follow it with ferry status ${workflowId}`,
      );
      return;
    }
    await sleep(POLL_MS);
  }
}

function selected(workflowId: string, vms: number, refused: number): void {
  const why = refused > 0 ? `, ${refused} refused (ferry status ${workflowId} --full says why)` : '';
  console.log(`  selected: ${vms} VM(s) to migrate${why}`);
}
