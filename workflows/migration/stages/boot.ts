import { bootOrder, LEFT_STOPPED } from '../../../src/domain/migration';
import { bootVm } from '../../vm/boot';
import type { MigrationRun } from '../run-context';

/** Boot from the first disk, then the first NIC. */
export async function setBootOrder(run: MigrationRun): Promise<undefined> {
  const { assessment, vmid } = run.vm;
  const vm = assessment.pveName;
  const order = bootOrder(assessment);
  await run.acts.write.setBootOrder.executeWithOptions({ summary: `boot order of ${vm}: ${order}` }, [
    { node: run.settings.node, vmid, order },
  ]);
  run.record({ kind: 'set-boot-order', vm, vmid, order });
  return undefined;
}

/** Starts the Proxmox VM, under the global limit on VM starts (ferry's start: recorded even if it ran already). */
export async function startVm(run: MigrationRun): Promise<undefined> {
  const { assessment, vmid } = run.vm;
  await bootVm(run, { node: run.settings.node, vmid, name: assessment.pveName });
  run.record({ kind: 'start-vm', vm: assessment.pveName, vmid });
  if (run.settings.cutover.mode === 'overlay') run.status.ranOnOverlays = true;
  return undefined;
}

/** import without `cutover.startAfter`: the VM stays off, and its verification says so. */
export async function leaveStopped(run: MigrationRun): Promise<undefined> {
  run.status.verification = LEFT_STOPPED;
  return undefined;
}
