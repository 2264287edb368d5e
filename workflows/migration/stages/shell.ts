import { createVmAction, guestAgentEnabled, nicWrites, shellSpec } from '../../../src/domain/migration';
import { waitVisible } from '../../vm/visible';
import type { MigrationRun } from '../run-context';

const VISIBILITY_INTERVAL_MS = 2_000;

/** A diskless VM with the VMware CPU, memory, firmware and MACs (a VM ferry made before is adopted). */
export async function shell(run: MigrationRun): Promise<undefined> {
  await buildShell(run, run.vm.occupancy.kind === 'free');
  return undefined;
}

/**
 * Creates the shell on the run's node (when `create`), waits until the cluster sees it, and sets its NICs
 * to the VMware MACs. Shared by the shell step and `ferry place` (`summaryPrefix` names who asked).
 */
export async function buildShell(run: MigrationRun, create: boolean, summaryPrefix = ''): Promise<void> {
  const { assessment, vmid } = run.vm;
  const { node, vcenter } = run.settings;
  const vm = assessment.pveName;
  if (create) {
    const { created } = await run.acts.pveTask.createVmShell.executeWithOptions(
      { summary: `${summaryPrefix}create shell VM ${vmid} ${vm} on ${node}` },
      [{ spec: shellSpec(assessment, { node, vcenter, guestAgent: guestAgentEnabled(run.settings) }) }],
    );
    if (created) run.record(createVmAction(assessment, node));
    await waitVisible(run, vmid, VISIBILITY_INTERVAL_MS);
  }
  const config = await run.acts.read.readPveConfig.executeWithOptions({ summary: `read the config of VM ${vmid}` }, [
    { node, vmid },
  ]);
  for (const { action, nic } of nicWrites(assessment, config)) {
    const { slot, ...spec } = nic;
    await run.acts.pveTask.setNic.executeWithOptions(
      { summary: `set ${slot} of ${vm}: ${spec.macaddr} on ${spec.bridge}` },
      [{ node, vmid, slot, nic: spec }],
    );
    run.record(action);
  }
}
