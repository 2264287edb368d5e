import {
  discoveredAddress,
  downtimeSeconds,
  expectedAddress,
  guestAgentEnabled,
  guestChecked,
  verifySettingsOf,
  verdict,
  type GuestVerification,
} from '../../../src/domain/migration';
import { verifyGuest } from '../../vm/verify-guest';
import type { MigrationRun } from '../run-context';

/** Whether ferry checks this guest once it runs: verification is on and the VM is not in `verify.skip`. */
export function guestIsChecked(run: MigrationRun): boolean {
  return guestChecked(run.vm.assessment.name, verifySettingsOf(run.settings)) === 'check';
}

/** A guest ferry does not check says why in its verification (disabled, or skipped by name). */
export async function recordUnchecked(run: MigrationRun): Promise<undefined> {
  const checked = guestChecked(run.vm.assessment.name, verifySettingsOf(run.settings));
  if (checked !== 'check') run.status.verification ??= checked;
  return undefined;
}

/**
 * ferry started the VM: prove the guest is up (workflows/vm/verify-guest.ts) with the VMware MACs, the
 * VMware address and the configured probes, within `migration.verify`'s timeouts; a verified guest's
 * downtime runs from the shutdown's start to its last check passed. A failed check throws
 * GuestNotVerified (the cutover's decision, or its automatic rollback, follows).
 */
export async function verifyMigratedGuest(run: MigrationRun): Promise<undefined> {
  const { assessment, vmid, snapshot } = run.vm;
  const verify = verifySettingsOf(run.settings);
  const expected = expectedAddress(assessment.name, verify.expect, discoveredAddress(snapshot.vm.guestAddresses));
  const result: GuestVerification = { state: 'failed', checks: [], ...(expected ? { expectedAddress: expected } : {}) };
  run.status.verification = result;
  const spec = {
    target: { node: run.settings.node, vmid, name: assessment.pveName },
    macs: assessment.nics.map((n) => n.mac),
    ...(expected ? { expectedAddress: expected } : {}),
    agent: guestAgentEnabled(run.settings),
    pollIntervalMs: verify.pollIntervalMs,
    agentTimeoutMs: verify.agentTimeoutMs,
    networkTimeoutMs: verify.networkTimeoutMs,
    probes: verify.probes,
    probeTimeoutMs: verify.probeTimeoutMs,
  };
  await verifyGuest(run, spec, result);
  const shutdownStarted = run.status.timings.find((t) => t.stage === 'shutdown')?.startedAt;
  const downtime = downtimeSeconds(shutdownStarted, verdict(result.checks).lastPassedAt);
  if (downtime !== undefined) result.downtimeSeconds = downtime;
  return undefined;
}
