import type { GuestNicAddresses } from '../inventory';
import { globMatches } from '../placement/match';

/**
 * Proving a migrated guest is up: the checks `verify-guest` runs after ferry starts the VM, each
 * recorded with its time, and the verdict over them. Pure: the workflow gathers the facts (QEMU's
 * state, the agent's answers, probe results) and these rules judge them.
 */

/** A TCP connect to this port of the guest's address. */
export interface GuestProbe {
  tcp: number;
}

export type VerifyFailurePolicy = 'decide' | 'rollback';

export interface VerifySettings {
  /** false: ferry starts the VM but claims nothing about its guest (`not-verified-disabled`). */
  enabled: boolean;
  /** How long the guest agent may take to answer after the VM started. */
  agentTimeoutMs: number;
  /**
   * How long after the agent answered the guest's network may take to show the VMware MACs and the
   * address (DHCP, networkd): a guest whose config names the wrong NIC fails after this, not after
   * the whole agent timeout.
   */
  networkTimeoutMs: number;
  /** How long each probe may take to succeed (the service may start after the agent). */
  probeTimeoutMs: number;
  /** How often the agent and the probes are asked again (durable timers). */
  pollIntervalMs: number;
  probes: GuestProbe[];
  /** `decide`: a person retries or rolls back. `rollback`: ferry rolls back by itself (the approval covered it). */
  onFailure: VerifyFailurePolicy;
  /** The address each VM (by VMware name) must have on one of its VMware NICs, when discovery does not say. */
  expect: Record<string, string>;
  /**
   * VMware names (globs: `*`, `?`) of VMs whose guests are not checked, such as appliances without a
   * guest agent: ferry starts them and reports `not-verified-skipped`, never `verified`.
   */
  skip: string[];
}

export const DEFAULT_VERIFY: VerifySettings = {
  enabled: true,
  agentTimeoutMs: 5 * 60_000,
  networkTimeoutMs: 60_000,
  probeTimeoutMs: 2 * 60_000,
  pollIntervalMs: 5_000,
  probes: [],
  onFailure: 'decide',
  expect: {},
  skip: [],
};

/**
 * The settings of a run, with defaults for fields a run started before they existed does not carry
 * (its settings were recorded in its history as they were then).
 */
export function verifySettingsOf(settings: { verify?: Partial<VerifySettings> }): VerifySettings {
  return { ...DEFAULT_VERIFY, ...settings.verify };
}

export type GuestCheckName = 'qemu-running' | 'agent-ping' | 'macs' | 'address' | 'probe';

export interface GuestCheck {
  check: GuestCheckName;
  result: 'passed' | 'failed' | 'skipped';
  /** Workflow time (ms since the epoch) the check was judged. */
  at: number;
  detail: string;
}

/** One interface as the guest agent reports it (network-get-interfaces). */
export interface GuestInterface {
  name: string;
  /** Lower case, as the agent reports it; absent for interfaces without one. */
  mac?: string;
  /** `address/prefix`. */
  addresses: string[];
}

export interface ExpectedAddress {
  address: string;
  source: 'config' | 'discovery';
}

/**
 * What ferry concluded about the guest. `not-verified-left-stopped`: ferry did not start the VM
 * (import without startAfter); `not-verified-disabled`: `migration.verify.enabled: false`;
 * `not-verified-skipped`: the VM is in `migration.verify.skip`. In all three nothing was checked and
 * nothing is claimed.
 */
export const VERIFICATION_STATES = [
  'verified',
  'failed',
  'not-verified-left-stopped',
  'not-verified-disabled',
  'not-verified-skipped',
] as const;
export type VerificationState = (typeof VERIFICATION_STATES)[number];

export interface GuestVerification {
  state: VerificationState;
  checks: GuestCheck[];
  interfaces?: GuestInterface[];
  expectedAddress?: ExpectedAddress;
  /** QEMU's uptime when the agent first answered (whole seconds, at most one poll interval late). */
  bootToAgentSeconds?: number;
  /** From the start of the VMware shutdown to the last check passed. */
  downtimeSeconds?: number;
}

export const LEFT_STOPPED: GuestVerification = { state: 'not-verified-left-stopped', checks: [] };
export const VERIFY_DISABLED: GuestVerification = { state: 'not-verified-disabled', checks: [] };
export const VERIFY_SKIPPED: GuestVerification = { state: 'not-verified-skipped', checks: [] };

/** Whether ferry checks this VM's guest once it started it: verification is on and the VM is not skipped. */
export function guestChecked(
  vmName: string,
  verify: Pick<VerifySettings, 'enabled' | 'skip'>,
): GuestVerification | 'check' {
  if (!verify.enabled) return VERIFY_DISABLED;
  if (verify.skip.some((pattern) => globMatches(pattern, vmName))) return VERIFY_SKIPPED;
  return 'check';
}

/**
 * The address the guest must carry: `migration.verify.expect` names it explicitly and wins; else the
 * one vCenter reported for the VM at discovery; else none (the address check is skipped, probes use
 * what the guest reports on a VMware NIC).
 */
export function expectedAddress(
  vmName: string,
  expect: Readonly<Record<string, string>>,
  discovered?: string,
): ExpectedAddress | undefined {
  const configured = expect[vmName];
  if (configured !== undefined) return { address: bareAddress(configured), source: 'config' };
  if (discovered !== undefined && discovered !== '') return { address: bareAddress(discovered), source: 'discovery' };
  return undefined;
}

/**
 * The VM's address as discovery recorded it (VMware Tools, else guestinfo): the first IPv4 address of
 * the first NIC that has one, else its first address at all.
 */
export function discoveredAddress(guestAddresses: readonly GuestNicAddresses[] | undefined): string | undefined {
  const nic = guestAddresses?.find((n) => n.addresses.length > 0);
  if (!nic) return undefined;
  return nic.addresses.find((a) => /^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(a)) ?? nic.addresses[0];
}

/** `10.0.0.5/24` → `10.0.0.5`. */
export function bareAddress(address: string): string {
  return address.split('/')[0]!.trim().toLowerCase();
}

const normMac = (mac: string) => mac.trim().toLowerCase().replace(/-/g, ':');

/** The interfaces whose MAC is one of the VMware MACs (ferry gave the Proxmox NICs the same ones). */
export function vmwareInterfaces(interfaces: readonly GuestInterface[], macs: readonly string[]): GuestInterface[] {
  const wanted = new Set(macs.map(normMac));
  return interfaces.filter((i) => i.mac !== undefined && wanted.has(normMac(i.mac)));
}

/**
 * The MAC check (every VMware MAC is on an interface in the guest) and the address check (the expected
 * address is on one of those interfaces; skipped when no address is expected).
 */
export function interfaceChecks(
  interfaces: readonly GuestInterface[],
  macs: readonly string[],
  expected: ExpectedAddress | undefined,
  at: number,
): GuestCheck[] {
  const present = new Set(interfaces.flatMap((i) => (i.mac ? [normMac(i.mac)] : [])));
  const missing = macs.filter((m) => !present.has(normMac(m)));
  const macCheck: GuestCheck = missing.length
    ? { check: 'macs', result: 'failed', at, detail: `no interface in the guest has ${missing.join(', ')}` }
    : { check: 'macs', result: 'passed', at, detail: `${macs.join(', ')} present` };
  if (!expected)
    return [
      macCheck,
      {
        check: 'address',
        result: 'skipped',
        at,
        detail: 'no expected address (none discovered, none in migration.verify.expect)',
      },
    ];
  const carrier = vmwareInterfaces(interfaces, macs).find((i) =>
    i.addresses.some((a) => bareAddress(a) === expected.address),
  );
  const addressCheck: GuestCheck = carrier
    ? { check: 'address', result: 'passed', at, detail: `${expected.address} on ${carrier.name} (${carrier.mac})` }
    : {
        check: 'address',
        result: 'failed',
        at,
        detail: `${expected.address} (${expected.source}) is on no interface with a VMware MAC`,
      };
  return [macCheck, addressCheck];
}

/** The address probes connect to: the expected one, else the guest's first IPv4 address on a VMware NIC. */
export function probeAddress(
  interfaces: readonly GuestInterface[],
  macs: readonly string[],
  expected: ExpectedAddress | undefined,
): string | undefined {
  if (expected) return expected.address;
  const ipv4 = vmwareInterfaces(interfaces, macs)
    .flatMap((i) => i.addresses.map(bareAddress))
    .find((a) => /^\d+\.\d+\.\d+\.\d+$/.test(a));
  return ipv4;
}

/** The guest's interfaces in one line each: what a person needs to see when a check failed. */
export function describeInterfaces(interfaces: readonly GuestInterface[]): string {
  if (interfaces.length === 0) return 'the guest reported no interfaces';
  return interfaces
    .map((i) => `${i.name} ${i.mac ?? '(no MAC)'} ${i.addresses.length ? i.addresses.join(' ') : '(no address)'}`)
    .join('; ');
}

export interface Verdict {
  verified: boolean;
  /** Why not: every failed check, in order. */
  reason?: string;
  /** When the last check passed (for the downtime). */
  lastPassedAt?: number;
}

/** Checks that show the guest itself runs (QEMU running alone does not: a guest may hang at its boot loader). */
const FROM_THE_GUEST: readonly GuestCheckName[] = ['agent-ping', 'probe'];

/**
 * Verified when no check failed and the guest itself answered (its agent or a probe); skipped checks
 * neither prove nor disprove.
 */
export function verdict(checks: readonly GuestCheck[]): Verdict {
  const failed = checks.filter((c) => c.result === 'failed');
  const passed = checks.filter((c) => c.result === 'passed');
  const lastPassedAt = passed.length ? Math.max(...passed.map((c) => c.at)) : undefined;
  if (failed.length)
    return { verified: false, reason: failed.map((c) => `${c.check}: ${c.detail}`).join('; '), lastPassedAt };
  if (!passed.some((c) => FROM_THE_GUEST.includes(c.check))) {
    return {
      verified: false,
      reason:
        'nothing proved the guest is up: its agent was not asked and no probe is configured (migration.verify.probes)',
      lastPassedAt,
    };
  }
  return { verified: true, lastPassedAt };
}

/** Seconds from the start of the VMware shutdown to the last check passed (one decimal). */
export function downtimeSeconds(
  shutdownStartedAt: number | undefined,
  lastPassedAt: number | undefined,
): number | undefined {
  if (shutdownStartedAt === undefined || lastPassedAt === undefined || lastPassedAt < shutdownStartedAt)
    return undefined;
  return Math.round((lastPassedAt - shutdownStartedAt) / 100) / 10;
}

/** One line for `ferry status`: the verdict with boot-to-agent and downtime. */
export function describeVerification(
  v: GuestVerification | Pick<GuestVerification, 'state' | 'bootToAgentSeconds' | 'downtimeSeconds'>,
): string {
  if (v.state === 'not-verified-left-stopped') return 'not verified (left stopped)';
  if (v.state === 'not-verified-disabled') return 'not verified (migration.verify.enabled: false)';
  if (v.state === 'not-verified-skipped') return 'not verified (in migration.verify.skip)';
  const figures = [
    v.bootToAgentSeconds !== undefined ? `boot-to-agent ${v.bootToAgentSeconds} s` : undefined,
    v.downtimeSeconds !== undefined ? `downtime ${v.downtimeSeconds} s` : undefined,
  ].filter(Boolean);
  return `${v.state}${figures.length ? ` (${figures.join(', ')})` : ''}`;
}

/** The verdict and its two figures, without the checks (what a wave keeps per VM). */
export function verificationSummary(
  v: GuestVerification,
): Pick<GuestVerification, 'state' | 'bootToAgentSeconds' | 'downtimeSeconds'> {
  return {
    state: v.state,
    ...(v.bootToAgentSeconds !== undefined ? { bootToAgentSeconds: v.bootToAgentSeconds } : {}),
    ...(v.downtimeSeconds !== undefined ? { downtimeSeconds: v.downtimeSeconds } : {}),
  };
}
