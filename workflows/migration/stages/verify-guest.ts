import { ActivityFailure, ApplicationFailure, patched } from '@temporalio/workflow';
import {
  describeInterfaces,
  discoveredAddress,
  downtimeSeconds,
  expectedAddress,
  guestAgentEnabled,
  interfaceChecks,
  probeAddress,
  verdict,
  verifySettingsOf,
  type GuestCheck,
  type GuestVerification,
  type VerifySettings,
} from '../../../src/domain/migration';
import { workflowNow } from '../../clock';
import { failureMessage } from '../../failures';
import { pollUntil } from '../../poll';
import { reads } from '../proxies';
import type { MigrationRun } from '../run-context';

/** The failure type of a guest that was not proven up (cutover's auto-rollback looks for it). */
export const GUEST_NOT_VERIFIED = 'GuestNotVerified';

/** One probe connect may take this long before it counts as a failed attempt. */
const PROBE_CONNECT_MS = 5_000;

/** What the checks share: where the guest is, what it must show, and the record being built. */
interface Checking {
  run: MigrationRun;
  node: string;
  vmid: number;
  vm: string;
  verify: VerifySettings;
  macs: string[];
  result: GuestVerification;
  /** When verification began (right after the start): the agent and the network share agentTimeout from here. */
  startedAt: number;
}

/**
 * ferry started the VM: prove the guest is up. QEMU runs; the guest agent answers within
 * `agentTimeout` (asked on durable timers); the VMware MACs and the VMware address are on the guest's
 * interfaces; each configured probe connects. Every check is recorded with its time; a failed one
 * throws GuestNotVerified (the cutover's retry/rollback decision follows) with the guest's interfaces.
 */
export async function verifyGuest(run: MigrationRun): Promise<void> {
  run.enter('verify-guest');
  const { assessment, vmid, snapshot } = run.vm;
  const verify = verifySettingsOf(run.settings);
  const expected = expectedAddress(assessment.name, verify.expect, discoveredAddress(snapshot.vm.guestAddresses));
  const result: GuestVerification = { state: 'failed', checks: [], ...(expected ? { expectedAddress: expected } : {}) };
  run.status.verification = result;
  const c: Checking = {
    run,
    node: run.settings.node,
    vmid,
    vm: assessment.pveName,
    verify,
    macs: assessment.nics.map((n) => n.mac),
    result,
    startedAt: workflowNow(),
  };
  const passed =
    (await qemuRunning(c)) && (await agentAnswers(c)) && (await interfacesMatch(c)) && (await probesConnect(c));
  const judged = verdict(result.checks);
  if (passed && judged.verified) {
    result.state = 'verified';
    const shutdownStarted = run.status.timings.find((t) => t.stage === 'shutdown')?.startedAt;
    const downtime = downtimeSeconds(shutdownStarted, judged.lastPassedAt);
    if (downtime !== undefined) result.downtimeSeconds = downtime;
    return;
  }
  const interfaces = result.interfaces ? `; the guest's interfaces: ${describeInterfaces(result.interfaces)}` : '';
  throw ApplicationFailure.create({
    type: GUEST_NOT_VERIFIED,
    message: `${c.vm} (VM ${vmid}) is not verified: ${judged.reason ?? 'a check failed'}${interfaces}`,
    nonRetryable: true,
  });
}

function check(c: Checking, name: GuestCheck['check'], ok: boolean | 'skipped', detail: string): boolean {
  c.result.checks.push({
    check: name,
    result: ok === 'skipped' ? 'skipped' : ok ? 'passed' : 'failed',
    at: workflowNow(),
    detail,
  });
  return ok !== false;
}

async function qemuRunning(c: Checking): Promise<boolean> {
  const state = await reads.guestRunState({ node: c.node, vmid: c.vmid });
  return check(
    c,
    'qemu-running',
    state.qmpstatus === 'running',
    `status ${state.status}, qmpstatus ${state.qmpstatus ?? 'none'}, up ${state.uptimeSeconds} s`,
  );
}

/** The agent's ping, asked until it answers or `agentTimeout` passes; its uptime then is boot-to-agent. */
async function agentAnswers(c: Checking): Promise<boolean> {
  if (!guestAgentEnabled(c.run.settings))
    return check(c, 'agent-ping', 'skipped', 'the guest agent is off (migration.cutover.guestAgent: false)');
  let last: Awaited<ReturnType<typeof reads.pingGuestAgent>> | undefined;
  const options = {
    what: `guest agent of ${c.vm}`,
    intervalMs: c.verify.pollIntervalMs,
    timeoutMs: c.verify.agentTimeoutMs,
  };
  try {
    c.run.waited(
      await pollUntil(
        async () => (last = await reads.pingGuestAgent({ node: c.node, vmid: c.vmid })).answered,
        options,
      ),
    );
  } catch (err) {
    if (!(err instanceof ApplicationFailure || err instanceof ActivityFailure)) throw err;
    const why = last?.reason ? ` (last answer: ${last.reason})` : '';
    return check(c, 'agent-ping', false, `${failureMessage(err)}${why}`);
  }
  if (last?.uptimeSeconds !== undefined) c.result.bootToAgentSeconds = last.uptimeSeconds;
  return check(c, 'agent-ping', true, `answered ${last?.uptimeSeconds ?? '?'} s after QEMU started`);
}

/**
 * The guest's interfaces: every VMware MAC present, the expected address on one of them. The guest's
 * network may come up after its agent, so they are read again on durable timers until they match or
 * the rest of `agentTimeout` has passed; the last reading is what is judged.
 */
async function interfacesMatch(c: Checking): Promise<boolean> {
  if (!guestAgentEnabled(c.run.settings))
    return check(c, 'macs', 'skipped', 'the guest agent is off: interfaces not read');
  let checks: GuestCheck[] = [];
  const matches = async () => {
    c.result.interfaces = await reads.guestInterfaces({ node: c.node, vmid: c.vmid });
    checks = interfaceChecks(c.result.interfaces, c.macs, c.result.expectedAddress, workflowNow());
    return checks.every((x) => x.result !== 'failed');
  };
  // Runs before 'verify-network-timeout' waited for the rest of agentTimeout: 10 minutes for a guest
  // whose network config names the VMware NIC, which never comes right by waiting.
  const timeoutMs = patched('verify-network-timeout')
    ? Math.max(c.verify.pollIntervalMs, c.verify.networkTimeoutMs)
    : Math.max(c.verify.pollIntervalMs, c.verify.agentTimeoutMs - (workflowNow() - c.startedAt));
  try {
    c.run.waited(
      await pollUntil(matches, {
        what: `network of ${c.vm} (VMware MACs and address)`,
        intervalMs: c.verify.pollIntervalMs,
        timeoutMs,
      }),
    );
  } catch (err) {
    if (!(err instanceof ApplicationFailure || err instanceof ActivityFailure)) throw err;
    if (checks.length === 0)
      return check(c, 'macs', false, `the guest agent did not list the interfaces: ${failureMessage(err)}`);
  }
  c.result.checks.push(...checks);
  return checks.every((x) => x.result !== 'failed');
}

/** Each probe connects to the guest's address within `probeTimeout`, asked again on durable timers. */
async function probesConnect(c: Checking): Promise<boolean> {
  if (c.verify.probes.length === 0) return true;
  const address = probeAddress(c.result.interfaces ?? [], c.macs, c.result.expectedAddress);
  if (!address)
    return check(c, 'probe', false, 'no address to probe: none expected, and the guest reported none on a VMware NIC');
  for (const probe of c.verify.probes) {
    let last: Awaited<ReturnType<typeof reads.probeGuestPort>> | undefined;
    const options = {
      what: `tcp ${address}:${probe.tcp} of ${c.vm}`,
      intervalMs: c.verify.pollIntervalMs,
      timeoutMs: c.verify.probeTimeoutMs,
    };
    try {
      c.run.waited(
        await pollUntil(
          async () =>
            (last = await reads.probeGuestPort({ vmid: c.vmid, address, port: probe.tcp, timeoutMs: PROBE_CONNECT_MS }))
              .ok,
          options,
        ),
      );
    } catch (err) {
      if (!(err instanceof ApplicationFailure || err instanceof ActivityFailure)) throw err;
      return check(
        c,
        'probe',
        false,
        `tcp ${last?.endpoint ?? `${address}:${probe.tcp}`}: ${[last?.error, failureMessage(err)].filter(Boolean).join('; ')}`,
      );
    }
    check(c, 'probe', true, `tcp ${last!.endpoint} connected in ${last!.ms} ms`);
  }
  return true;
}
