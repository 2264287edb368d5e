import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import {
  describeInterfaces,
  interfaceChecks,
  probeAddress,
  verdict,
  type ExpectedAddress,
  type GuestCheck,
  type GuestVerification,
} from '../../src/domain/migration';
import type { WaitRecord } from '../../src/domain/waits';
import { workflowNow } from '../clock';
import { failureMessage } from '../failures';
import { pollUntil } from '../poll';
import type { VmTarget } from './boot';
import type { ActivityProfiles } from './proxies';

/** The failure type of a guest that was not proven up (a migration's auto-rollback looks for it). */
export const GUEST_NOT_VERIFIED = 'GuestNotVerified';

/** One probe connect may take this long before it counts as a failed attempt. */
const PROBE_CONNECT_MS = 5_000;

/** What proves a started guest up, and how long each check may take. */
export interface GuestChecksSpec {
  target: VmTarget;
  /** The MACs that must be on the guest's interfaces. */
  macs: readonly string[];
  /** The address one of them must carry. */
  expectedAddress?: ExpectedAddress;
  /** Whether the VM has the guest agent: without it, the agent and the interfaces are not asked (skipped). */
  agent: boolean;
  pollIntervalMs: number;
  /** From the check's start until the agent answers. */
  agentTimeoutMs: number;
  /** After the agent answered, until the interfaces show the MACs and the address. */
  networkTimeoutMs: number;
  probes: ReadonlyArray<{ tcp: number }>;
  probeTimeoutMs: number;
}

interface Checking {
  acts: ActivityProfiles;
  spec: GuestChecksSpec;
  result: GuestVerification;
  waited(wait: WaitRecord): void;
}

/**
 * Proves a guest ferry started is up: QEMU runs; the guest agent answers (asked on durable timers); the
 * expected MACs and address are on its interfaces; each probe connects. Every check is recorded in
 * `result` with its time (the caller's status shows it as it goes). A failed check throws
 * GuestNotVerified, non-retryable, with the reason and the guest's interfaces.
 */
export async function verifyGuest(
  run: { acts: ActivityProfiles; waited(wait: WaitRecord): void },
  spec: GuestChecksSpec,
  result: GuestVerification,
): Promise<void> {
  const c: Checking = { acts: run.acts, spec, result, waited: run.waited };
  const passed = (await qemuRunning(c)) && (await agentAnswers(c)) && (await interfacesMatch(c)) && (await probes(c));
  const judged = verdict(result.checks);
  if (passed && judged.verified) {
    result.state = 'verified';
    return;
  }
  const { name, vmid } = spec.target;
  const interfaces = result.interfaces ? `; the guest's interfaces: ${describeInterfaces(result.interfaces)}` : '';
  throw ApplicationFailure.create({
    type: GUEST_NOT_VERIFIED,
    message: `${name} (VM ${vmid}) is not verified: ${judged.reason ?? 'a check failed'}${interfaces}`,
    nonRetryable: true,
  });
}

function check(c: Checking, name: GuestCheck['check'], ok: boolean | 'skipped', detail: string): boolean {
  const result = ok === 'skipped' ? 'skipped' : ok ? 'passed' : 'failed';
  c.result.checks.push({ check: name, result, at: workflowNow(), detail });
  return ok !== false;
}

/** A wait that ran out is a failed check with its reason; anything else (a cancel) goes on up. */
function timedOut(err: unknown): boolean {
  return err instanceof ApplicationFailure || err instanceof ActivityFailure;
}

async function qemuRunning(c: Checking): Promise<boolean> {
  const { node, vmid } = c.spec.target;
  const state = await c.acts.read.guestRunState.executeWithOptions({ summary: `is VM ${vmid}'s QEMU running?` }, [
    { node, vmid },
  ]);
  const detail = `status ${state.status}, qmpstatus ${state.qmpstatus ?? 'none'}, up ${state.uptimeSeconds} s`;
  return check(c, 'qemu-running', state.qmpstatus === 'running', detail);
}

/** The agent's ping, asked until it answers or `agentTimeoutMs` passes; its uptime then is boot-to-agent. */
async function agentAnswers(c: Checking): Promise<boolean> {
  if (!c.spec.agent) return check(c, 'agent-ping', 'skipped', 'the VM has no guest agent configured');
  const { node, vmid, name } = c.spec.target;
  let last: { answered: boolean; reason?: string; uptimeSeconds?: number } | undefined;
  const ping = async () =>
    (last = await c.acts.read.pingGuestAgent.executeWithOptions({ summary: `does ${name}'s guest agent answer?` }, [
      { node, vmid },
    ])).answered;
  try {
    const options = {
      what: `guest agent of ${name}`,
      intervalMs: c.spec.pollIntervalMs,
      timeoutMs: c.spec.agentTimeoutMs,
    };
    c.waited(await pollUntil(ping, options));
  } catch (err) {
    if (!timedOut(err)) throw err;
    return check(
      c,
      'agent-ping',
      false,
      `${failureMessage(err)}${last?.reason ? ` (last answer: ${last.reason})` : ''}`,
    );
  }
  if (last?.uptimeSeconds !== undefined) c.result.bootToAgentSeconds = last.uptimeSeconds;
  return check(c, 'agent-ping', true, `answered ${last?.uptimeSeconds ?? '?'} s after QEMU started`);
}

/**
 * The guest's interfaces: every expected MAC present, the expected address on one of them. The guest's
 * network may come up after its agent, so they are read again on durable timers until they match or
 * `networkTimeoutMs` passes; the last reading is what is judged.
 */
async function interfacesMatch(c: Checking): Promise<boolean> {
  if (!c.spec.agent) return check(c, 'macs', 'skipped', 'the VM has no guest agent configured: interfaces not read');
  const { node, vmid, name } = c.spec.target;
  let checks: GuestCheck[] = [];
  const matches = async () => {
    c.result.interfaces = await c.acts.read.guestInterfaces.executeWithOptions(
      { summary: `${name}'s interfaces, as its guest agent lists them` },
      [{ node, vmid }],
    );
    checks = interfaceChecks(c.result.interfaces, c.spec.macs, c.result.expectedAddress, workflowNow());
    return checks.every((x) => x.result !== 'failed');
  };
  const what = `network of ${name} (its MACs${c.result.expectedAddress ? ' and address' : ''})`;
  const timeoutMs = Math.max(c.spec.pollIntervalMs, c.spec.networkTimeoutMs);
  try {
    c.waited(await pollUntil(matches, { what, intervalMs: c.spec.pollIntervalMs, timeoutMs }));
  } catch (err) {
    if (!timedOut(err)) throw err;
    if (checks.length === 0)
      return check(c, 'macs', false, `the guest agent did not list the interfaces: ${failureMessage(err)}`);
  }
  c.result.checks.push(...checks);
  return checks.every((x) => x.result !== 'failed');
}

/** Each probe connects to the guest's address within `probeTimeoutMs`, asked again on durable timers. */
async function probes(c: Checking): Promise<boolean> {
  if (c.spec.probes.length === 0) return true;
  const address = probeAddress(c.result.interfaces ?? [], c.spec.macs, c.result.expectedAddress);
  if (!address)
    return check(c, 'probe', false, 'no address to probe: none expected, and the guest reported none on its MACs');
  for (const probe of c.spec.probes) if (!(await probeConnects(c, address, probe.tcp))) return false;
  return true;
}

async function probeConnects(c: Checking, address: string, port: number): Promise<boolean> {
  const { vmid, name } = c.spec.target;
  let last: { ok: boolean; endpoint: string; ms: number; error?: string } | undefined;
  const connect = async () =>
    (last = await c.acts.read.probeGuestPort.executeWithOptions({ summary: `tcp ${address}:${port} of ${name}` }, [
      { vmid, address, port, timeoutMs: PROBE_CONNECT_MS },
    ])).ok;
  try {
    const options = {
      what: `tcp ${address}:${port} of ${name}`,
      intervalMs: c.spec.pollIntervalMs,
      timeoutMs: c.spec.probeTimeoutMs,
    };
    c.waited(await pollUntil(connect, options));
  } catch (err) {
    if (!timedOut(err)) throw err;
    const why = [last?.error, failureMessage(err)].filter(Boolean).join('; ');
    return check(c, 'probe', false, `tcp ${last?.endpoint ?? `${address}:${port}`}: ${why}`);
  }
  return check(c, 'probe', true, `tcp ${last!.endpoint} connected in ${last!.ms} ms`);
}
