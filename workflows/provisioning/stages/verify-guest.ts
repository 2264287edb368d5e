import type { GuestVerification } from '../../../src/domain/migration';
import { hostAddress, provisionStep, type ProvisionSpec } from '../../../src/domain/provisioning';
import { verifyGuest } from '../../vm/verify-guest';
import type { VmBuild } from '../run-context';

/** Boot to agent under TCG takes seconds to a minute; a guest silent for this long is not up. */
const AGENT_TIMEOUT_MS = 5 * 60_000;

/** Whether the VM boots an image ferry gave it (a disk made with importFrom): then its start is verified. */
export const bootsImage = (spec: ProvisionSpec): boolean => spec.disks.some((d) => d.importFrom !== undefined);

/**
 * ferry started a VM that boots an image: prove the guest came up as provisioned (workflows/vm/verify-guest.ts)
 * with the VM's MACs and its NetBox address; a failed check fails the provision with its reason and the
 * guest's interfaces.
 */
export async function verifyProvisionedGuest(build: VmBuild): Promise<void> {
  const { spec, vmid, node, status, settings, record } = build;
  const expected = status.address ? { address: hostAddress(status.address), source: 'config' as const } : undefined;
  const result: GuestVerification = { state: 'failed', checks: [], ...(expected ? { expectedAddress: expected } : {}) };
  status.verification = result;
  const pollIntervalMs = Math.min(settings.pollIntervalMs, 2_000);
  const checks = {
    target: { node, vmid, name: spec.name },
    macs: Object.values(status.macs),
    ...(expected ? { expectedAddress: expected } : {}),
    agent: true,
    pollIntervalMs,
    agentTimeoutMs: AGENT_TIMEOUT_MS,
    networkTimeoutMs: settings.guestNetworkTimeoutMs,
    probes: [],
    probeTimeoutMs: 0,
  };
  await verifyGuest(build, checks, result);
  const where = expected ? `, ${expected.address} on the guest` : '';
  record(
    provisionStep(
      'verify-guest',
      `VM ${vmid}`,
      'unchanged',
      `agent after ${result.bootToAgentSeconds ?? '?'} s${where}`,
    ),
  );
}
