import { condition, defineQuery, setHandler, sleep } from '@temporalio/workflow';
import { withPermit } from '../../workflows/permits';
import { workflowNow } from '../../workflows/clock';

export interface ProbeInput {
  key: string;
  permits: number;
  leaseMs: number;
  holdMs: number;
}

export interface ProbeResult {
  waitedMs: number;
  grantedAt: number;
  releasedAt: number;
}

export const permitHeldQuery = defineQuery<boolean>('permitHeld');

/** Holds one permit for `holdMs`, then releases it. */
export async function holdPermit(input: ProbeInput): Promise<ProbeResult> {
  let held = false;
  setHandler(permitHeldQuery, () => held);
  return withPermit({ ...input, label: 'probe' }, async ({ waitedMs }) => {
    held = true;
    const grantedAt = workflowNow();
    await sleep(input.holdMs);
    return { waitedMs, grantedAt, releasedAt: workflowNow() };
  });
}

/** Takes a permit and never gives it back on its own: stands in for a holder that vanishes. */
export async function holdPermitUntilKilled(input: ProbeInput): Promise<void> {
  let held = false;
  setHandler(permitHeldQuery, () => held);
  await withPermit({ ...input, label: 'vanishing holder' }, async () => {
    held = true;
    await condition(() => false);
  });
}
