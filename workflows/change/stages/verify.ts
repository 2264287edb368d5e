import { sleep } from '@temporalio/workflow';
import { verifyChanges, type ChangeOutcome, type ChangePlan, type GuestView } from '../../../src/domain/change';
import { workflowNow } from '../../clock';
import type { ChangeRun } from '../run-context';

/** A guest takes a moment to show a live change (memory onlined by the kernel, a NIC's link renewed; under TCG up to a minute or two): asked again for up to this long. */
const GUEST_SETTLE_MS = 120_000;

/**
 * Verification, not hope: Proxmox's config and pending read back (a change called live must not sit in
 * pending) and, where the agent answers, the guest's own view (its memory, each disk's size, the MAC
 * with NetBox's address). Asked again on durable timers while a change still fails, up to two minutes;
 * the last reading is what each change's outcome says.
 */
export async function verify(
  run: ChangeRun,
  plan: ChangePlan,
  addresses: Record<string, string>,
): Promise<ChangeOutcome[]> {
  run.enter('verify');
  const sent = new Set(run.status.sent.flatMap((s) => s.changes));
  const started = workflowNow();
  for (;;) {
    const readBack = await readBackOf(run, plan);
    const outcomes = verifyChanges({ plan, sent, readBack, addresses, restarted: run.status.restarted === true });
    run.status.outcomes = outcomes;
    if (!outcomes.some((o) => o.outcome === 'failed') || workflowNow() - started >= GUEST_SETTLE_MS) return outcomes;
    await sleep(Math.min(run.settings.pollIntervalMs, 5_000), { summary: `poll: VM ${plan.vmid} shows its changes` });
  }
}

async function readBackOf(run: ChangeRun, plan: ChangePlan) {
  const { node, vmid } = plan;
  // Only what verification judges: the plan knows the node, and storages matter to planning alone.
  const state = await run.acts.read.readVmBack.executeWithOptions(
    { summary: `read VM ${vmid} back: config, pending, power` },
    [{ node, vmid }],
  );
  let guest: GuestView | undefined;
  if (state.power === 'running') {
    guest = await run.acts.read.readGuestView.executeWithOptions({ summary: `what the guest of VM ${vmid} sees` }, [
      { node, vmid },
    ]);
    if (!guest) run.status.guestUnread = 'the guest agent did not answer: only Proxmox was read back';
  }
  return { config: state.config, pending: state.pending, ...(guest ? { guest } : {}) };
}
