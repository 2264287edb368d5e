import type { ChangePlan, ConfigWrite } from '../../../src/domain/change';
import type { SentStep } from '../../../src/domain/change-vm';
import type { ChangeRun } from '../run-context';

/**
 * What Proxmox applies to the VM as it runs, in the plan's order: the live config write (one request),
 * then each disk moved (live `move_disk`), then each disk grown (`resize`). The first write carries the
 * plan's digest: a VM changed since the plan refuses it, and the run fails saying so, nothing overwritten.
 */
export async function applyLive(run: ChangeRun, plan: ChangePlan): Promise<void> {
  run.enter('apply');
  const { node, vmid } = plan;
  if (plan.steps.live) await writeConfig(run, plan, 'live', plan.steps.live, plan.digest);
  for (const move of plan.steps.moves) {
    await run.acts.pveTask.moveVmDisk.executeWithOptions(
      { summary: `move ${move.slot} of VM ${vmid} to ${move.storage}${move.deleteSource ? ' (source deleted)' : ''}` },
      [{ node, vmid, slot: move.slot, storage: move.storage, deleteSource: move.deleteSource }],
    );
    record(run, { step: 'move', changes: [move.change] });
  }
  for (const resize of plan.steps.resizes) {
    await run.acts.pveTask.resizeVmDisk.executeWithOptions(
      { summary: `grow ${resize.slot} of VM ${vmid} to ${resize.size}` },
      [{ node, vmid, slot: resize.slot, size: resize.size }],
    );
    record(run, { step: 'resize', changes: [resize.change] });
  }
}

/** One config write of the plan (live, restart or stopped), recorded with the change ids it carries. */
export async function writeConfig(
  run: ChangeRun,
  plan: ChangePlan,
  step: 'live' | 'restart' | 'stopped',
  write: ConfigWrite,
  digest?: string,
): Promise<void> {
  const { node, vmid } = plan;
  await run.acts.pveTask.writeVmConfig.executeWithOptions(
    { summary: `${step} config write of VM ${vmid}: ${write.changes.join(', ')}` },
    [{ node, vmid, write, ...(digest ? { digest } : {}) }],
  );
  record(run, { step, changes: write.changes });
}

/** A request group sent, once: a retried segment does not list it twice. */
function record(run: ChangeRun, sent: SentStep): void {
  if (!run.status.sent.some((s) => s.step === sent.step && s.changes.join() === sent.changes.join())) run.record(sent);
}
