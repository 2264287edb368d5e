import { bootOrder } from '../../../src/domain/migration';
import { PERMIT_KEYS } from '../../../src/domain/permits';
import { withPermit } from '../../permits';
import type { MigrationRun } from '../run-context';

/** Boot from the first disk, then the first NIC. */
export async function setBootOrder(run: MigrationRun): Promise<void> {
  const { assessment, vmid } = run.vm;
  const vm = assessment.pveName;
  const order = bootOrder(assessment);
  await run.acts.pve.setBootOrder.executeWithOptions({ summary: `boot order of ${vm}: ${order}` }, [
    { node: run.settings.node, vmid, order },
  ]);
  run.record({ kind: 'set-boot-order', vm, vmid, order });
}

/** Starts the Proxmox VM, under the global limit on VM starts. */
export async function bootPveVm(run: MigrationRun): Promise<void> {
  run.enter('start');
  const { assessment, vmid } = run.vm;
  const { node, limits } = run.settings;
  const vm = assessment.pveName;
  await withPermit(
    { key: PERMIT_KEYS.vmStart, permits: limits.vmStart, leaseMs: 30 * 60_000, label: `start ${vm}` },
    () => run.acts.pve.startVm.executeWithOptions({ summary: `start VM ${vmid} ${vm} on ${node}` }, [{ node, vmid }]),
  );
  run.record({ kind: 'start-vm', vm, vmid });
}
