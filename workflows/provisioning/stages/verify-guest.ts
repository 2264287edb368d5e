import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { GuestCheckActivities } from '../../../activities/migration-contract';
import {
  describeInterfaces,
  interfaceChecks,
  verdict,
  type GuestCheck,
  type GuestVerification,
} from '../../../src/domain/migration';
import { hostAddress, type ProvisionSpec } from '../../../src/domain/provisioning';
import { workflowNow } from '../../clock';
import { failureMessage } from '../../failures';
import { pollUntil } from '../../poll';
import type { VmBuild } from '../run-context';

/** The same guest reads as migration's verify-guest (activities/migration/guest-checks.ts). */
const guest = proxyActivities<GuestCheckActivities>({
  startToCloseTimeout: '1m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10s' },
});

/** Boot to agent under TCG takes seconds to a minute; a guest silent for this long is not up. */
const AGENT_TIMEOUT_MS = 5 * 60_000;
/** The guest configures its network before or with its agent; an address missing this long after the agent answered is not coming (provisioning.guestNetworkTimeout; runs from before it had none). */
const NETWORK_AFTER_AGENT_MS = 60_000;

/** The failure type of a provisioned guest that was not proven up. */
export const GUEST_NOT_VERIFIED = 'GuestNotVerified';

/** Whether the VM boots an image ferry gave it (a disk made with importFrom): then its start is verified. */
export const bootsImage = (spec: ProvisionSpec): boolean => spec.disks.some((d) => d.importFrom !== undefined);

/**
 * ferry started a VM that boots an image: prove the guest came up as provisioned. QEMU runs; the guest
 * agent answers (asked on durable timers); the VM's MACs and its NetBox address are on the guest's
 * interfaces. Every check is recorded with its time; a failed one fails the provision with its reason
 * and the guest's interfaces.
 */
export async function verifyProvisionedGuest(vm: VmBuild): Promise<void> {
  const { spec, vmid, node, status, settings, enter, record } = vm;
  enter('verify-guest');
  const expected = status.address ? { address: hostAddress(status.address), source: 'config' as const } : undefined;
  const result: GuestVerification = { state: 'failed', checks: [], ...(expected ? { expectedAddress: expected } : {}) };
  status.verification = result;
  const check = (name: GuestCheck['check'], ok: boolean, detail: string) => (
    result.checks.push({ check: name, result: ok ? 'passed' : 'failed', at: workflowNow(), detail }),
    ok
  );
  const intervalMs = Math.min(settings.pollIntervalMs, 2_000);

  const state = await guest.guestRunState({ node, vmid });
  let up = check(
    'qemu-running',
    state.qmpstatus === 'running',
    `status ${state.status}, qmpstatus ${state.qmpstatus ?? 'none'}, up ${state.uptimeSeconds} s`,
  );
  let last: Awaited<ReturnType<typeof guest.pingGuestAgent>> | undefined;
  if (up) {
    try {
      status.waits.push(
        await pollUntil(async () => (last = await guest.pingGuestAgent({ node, vmid })).answered, {
          what: `guest agent of ${spec.name}`,
          intervalMs,
          timeoutMs: AGENT_TIMEOUT_MS,
        }),
      );
      if (last?.uptimeSeconds !== undefined) result.bootToAgentSeconds = last.uptimeSeconds;
      up = check('agent-ping', true, `answered ${last?.uptimeSeconds ?? '?'} s after QEMU started`);
    } catch (err) {
      if (!(err instanceof ApplicationFailure || err instanceof ActivityFailure)) throw err;
      up = check('agent-ping', false, `${failureMessage(err)}${last?.reason ? ` (last answer: ${last.reason})` : ''}`);
    }
  }
  if (up) await interfacesMatch(vm, result, intervalMs);
  const judged = verdict(result.checks);
  if (judged.verified) {
    result.state = 'verified';
    record(
      'verify-guest',
      `VM ${vmid}`,
      'unchanged',
      `agent after ${result.bootToAgentSeconds ?? '?'} s${expected ? `, ${expected.address} on the guest` : ''}`,
    );
    return;
  }
  const interfaces = result.interfaces ? `; the guest's interfaces: ${describeInterfaces(result.interfaces)}` : '';
  throw ApplicationFailure.create({
    type: GUEST_NOT_VERIFIED,
    message: `${spec.name} (VM ${vmid}) is not verified: ${judged.reason ?? 'a check failed'}${interfaces}`,
    nonRetryable: true,
  });
}

/** The VM's MACs and the NetBox address on the guest's interfaces, read again until they match or guestNetworkTimeout passes. */
async function interfacesMatch(
  { spec, vmid, node, status, settings }: VmBuild,
  result: GuestVerification,
  intervalMs: number,
): Promise<void> {
  const macs = Object.values(status.macs);
  let checks: GuestCheck[] = [];
  const matches = async () => {
    result.interfaces = await guest.guestInterfaces({ node, vmid });
    checks = interfaceChecks(result.interfaces, macs, result.expectedAddress, workflowNow());
    return checks.every((x) => x.result !== 'failed');
  };
  try {
    status.waits.push(
      await pollUntil(matches, {
        what: `network of ${spec.name} (its MACs and NetBox address)`,
        intervalMs,
        timeoutMs: settings.guestNetworkTimeoutMs ?? NETWORK_AFTER_AGENT_MS,
      }),
    );
  } catch (err) {
    if (!(err instanceof ApplicationFailure || err instanceof ActivityFailure)) throw err;
    if (checks.length === 0)
      checks = [
        {
          check: 'macs',
          result: 'failed',
          at: workflowNow(),
          detail: `the guest agent did not list the interfaces: ${failureMessage(err)}`,
        },
      ];
  }
  result.checks.push(...checks);
}
