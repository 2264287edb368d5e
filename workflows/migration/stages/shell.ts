import { condition } from '@temporalio/workflow';
import {
  createVmAction,
  guestAgentEnabled,
  nicWrites,
  shellSpec,
  type MigrateVmResult,
} from '../../../src/domain/migration';
import { pollUntil } from '../../poll';
import { reads } from '../proxies';
import type { MigrationRun } from '../run-context';

const VISIBILITY_POLL = { firstIntervalMs: 100, intervalMs: 2_000, timeoutMs: 10 * 60_000 };

/** A diskless VM with the VMware CPU, memory, firmware and MACs (a VM ferry made before is adopted). */
export async function shell(run: MigrationRun): Promise<MigrateVmResult | undefined> {
  // A `ferry place` taken before the shell exists decides its node first (no command: replay-safe).
  await condition(() => !run.placing);
  run.enter('shell');
  await buildShell(run, run.vm.occupancy.kind === 'free');
  return undefined;
}

/**
 * Creates the shell on the run's node (when `create`), waits until the cluster sees it, and sets its NICs
 * to the VMware MACs. Shared by the shell stage and `ferry place` (`summaryPrefix` names who asked).
 */
export async function buildShell(run: MigrationRun, create: boolean, summaryPrefix = ''): Promise<void> {
  const { assessment, vmid } = run.vm;
  const { node, vcenter } = run.settings;
  const vm = assessment.pveName;
  if (create) {
    const { created } = await run.acts.pve.createVmShell.executeWithOptions(
      { summary: `${summaryPrefix}create shell VM ${vmid} ${vm} on ${node}` },
      [{ spec: shellSpec(assessment, { node, vcenter, guestAgent: guestAgentEnabled(run.settings) }) }],
    );
    if (created) run.record(createVmAction(assessment, node));
    run.waited(
      await pollUntil(
        async () =>
          (await reads.waitVmVisible.executeWithOptions({ summary: `is VM ${vmid} visible cluster-wide?` }, [{ vmid }]))
            .visible,
        { what: `VM ${vmid} visible cluster-wide`, ...VISIBILITY_POLL },
      ),
    );
  }
  for (const { action, nic } of nicWrites(
    assessment,
    await reads.readPveConfig.executeWithOptions({ summary: `read the config of VM ${vmid}` }, [{ node, vmid }]),
  )) {
    const { slot, ...spec } = nic;
    await run.acts.pve.setNic.executeWithOptions(
      { summary: `set ${slot} of ${vm}: ${spec.macaddr} on ${spec.bridge}` },
      [{ node, vmid, slot, nic: spec }],
    );
    run.record(action);
  }
}
