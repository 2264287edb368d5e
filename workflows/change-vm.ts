import { newChangeStatus, type ChangeResult, type ChangeRunOutcome, type ChangeVmInput } from '../src/domain/change-vm';
import { planWritesNothing } from '../src/domain/change';
import { changeStatusQuery } from '../src/domain/messages';
import { ChangeRun, listenForEdits } from './change/run-context';
import { applyLive, writeConfig } from './change/stages/apply';
import { debounce } from './change/stages/debounce';
import { awaitGate, hasGated } from './change/stages/gate';
import { readAndPlan, type Planned } from './change/stages/read-plan';
import { recordRun, runOutcome } from './change/stages/record';
import { restartVm } from './change/stages/restart';
import { verify } from './change/stages/verify';
import { reads } from './vm/proxies';
import { openStatus } from './vm/run';

export type { ChangeVmInput } from '../src/domain/change-vm';

/**
 * Day 2: keeps one built VM equal to its NetBox record (`change-<vmid>`). A burst of NetBox edits → read
 * both sides → plan (src/domain/change) → apply what Proxmox takes live → verify in Proxmox and in the
 * guest → for changes that wait for a restart: an approval (which may ask ferry to restart the VM) or
 * the maintenance window → apply, verify → record the baseline and a journal entry in NetBox. Nothing is
 * restarted unasked; a rerun with nothing to do writes nothing.
 */
export async function changeVm(input: ChangeVmInput): Promise<ChangeResult> {
  const status = openStatus('change', newChangeStatus(input), changeStatusQuery);
  listenForEdits(status);
  const settings =
    input.settings ?? (await reads.loadChangeSettings.executeWithOptions({ summary: 'load the change settings' }, []));
  const run = new ChangeRun(settings, status);
  run.named(`VM ${input.vmid}`, input.vmid);
  try {
    const outcome = await change(run);
    status.outcome = outcome;
    run.end(outcome === 'applied' || outcome === 'pending-restart' || outcome === 'partial' ? 'done' : outcome);
    return { ...status, outcome };
  } catch (err) {
    run.failed(err);
    run.end('failed');
    throw err;
  }
}

async function change(run: ChangeRun): Promise<ChangeRunOutcome> {
  for (;;) {
    await debounce(run);
    const planned = await readAndPlan(run);
    if (!planned) return 'refused';
    if (planWritesNothing(planned.plan) && planned.plan.changes.length === 0) {
      await recordRun(run, planned.plan, planned.record, 'nothing-to-do');
      return 'nothing-to-do';
    }
    const ended = await applyAndVerify(run, planned);
    if (ended) return ended;
  }
}

/** One plan carried out; undefined when a new NetBox edit at the gate asks for a new plan. */
async function applyAndVerify(run: ChangeRun, { plan, record }: Planned): Promise<ChangeRunOutcome | undefined> {
  await applyLive(run, plan);
  await verify(run, plan, record.addresses);
  if (hasGated(plan)) {
    const gate = await awaitGate(run);
    if (gate.by === 'edit') return undefined;
    if (gate.by !== 'rejection') {
      if (plan.steps.restart) await writeConfig(run, plan, 'restart', plan.steps.restart);
      if (gate.by === 'approval' && gate.restart) await restartVm(run, plan);
      await verify(run, plan, record.addresses);
    }
    if (gate.by === 'rejection') {
      await recordRun(run, plan, record, 'rejected');
      return 'rejected';
    }
  }
  const outcome = runOutcome(run.status.outcomes);
  await recordRun(run, plan, record, outcome);
  return outcome;
}
