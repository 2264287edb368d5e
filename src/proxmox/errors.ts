import { FerryError, type ErrorCategory } from '../errors';

/**
 * Typed Proxmox errors, each a FerryError with the category activities/failures.ts turns into a
 * retryable or non-retryable Temporal failure. Messages name the call (method and path, never
 * credentials) and carry PVE's own text.
 */
export interface ProxmoxErrorContext {
  method?: string;
  path?: string;
  status?: number;
  /** PVE's message, unchanged. */
  pveMessage?: string;
  /** No answer within the request's deadline. */
  timedOut?: boolean;
  [other: string]: unknown;
}

export class ProxmoxError extends FerryError {
  constructor(
    message: string,
    category: ErrorCategory,
    readonly context: ProxmoxErrorContext = {},
    cause?: unknown,
  ) {
    super(message, category, { cause, details: stripUndefined({ ...context }) });
  }
}

/** HTTP 400 "Parameter verification failed.": `errors` has PVE's message per parameter. */
export class ProxmoxParameterError extends ProxmoxError {
  constructor(
    readonly errors: Record<string, string>,
    context: ProxmoxErrorContext,
  ) {
    const list = Object.entries(errors)
      .map(([k, v]) => `${k}: ${v.trim().replace(/\n/g, '; ')}`)
      .join('; ');
    super(`${where(context)}: parameter verification failed: ${list}`, 'invalid', { ...context, errors });
  }
}

/** 401: wrong or expired credentials. */
export class ProxmoxAuthError extends ProxmoxError {
  constructor(context: ProxmoxErrorContext) {
    super(
      `${where(context)}: authentication refused (${context.pveMessage ?? 'HTTP 401'}); check the token id/secret or password`,
      'permission',
      context,
    );
  }
}

/** 403: authenticated, but the user/token lacks a privilege. */
export class ProxmoxPermissionError extends ProxmoxError {
  constructor(context: ProxmoxErrorContext) {
    super(
      `${where(context)}: ${context.pveMessage ?? 'permission denied'}; grant the missing privilege to ferry's user or token`,
      'permission',
      context,
    );
  }
}

export class ProxmoxNotFoundError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}) {
    super(message, 'not-found', context);
  }
}

/** "VM N is locked (…)", a config file lock timeout, or the SDN lock held by someone else: try later. */
export class ProxmoxLockedError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}) {
    super(message, 'locked', context);
  }
}

/** The config changed since it was read (digest mismatch): re-read and try again. */
export class ProxmoxDigestMismatchError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}) {
    super(message, 'conflict', context);
  }
}

/** The VM runs where the operation needs it stopped (e.g. delete). */
export class ProxmoxVmRunningError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}) {
    super(message, 'invalid', context);
  }
}

/**
 * The VM has `agent` enabled but the guest agent does not answer (not started yet, not installed, or
 * hung): worth asking again while a deadline allows.
 */
export class ProxmoxAgentNotRunningError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}) {
    super(message, 'transient', context);
  }
}

/** The VM's config does not enable the guest agent: asking again cannot help; set `agent: enabled=1` first. */
export class ProxmoxAgentNotConfiguredError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}) {
    super(`${message}; the VM needs agent: enabled=1 (migration.cutover.guestAgent)`, 'invalid', context);
  }
}

/** 5xx without a known permanent cause, connection reset or refused, timeouts. */
export class ProxmoxTransientError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}, cause?: unknown) {
    super(message, 'transient', context, cause);
  }
}

/** PVE refused the request for a reason retrying cannot fix ("already exists", "shrinking disks is not supported", …). */
export class ProxmoxRequestError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}) {
    super(message, 'invalid', context);
  }
}

/** A caller passed a value that cannot be right (not a VMID, not a disk slot, …): fix the input. */
export class ProxmoxInputError extends ProxmoxError {
  constructor(message: string) {
    super(message, 'invalid');
  }
}

/** ferry refuses on purpose (e.g. a VMID taken by a different VM, import-from onto a used slot). */
export class ProxmoxPolicyError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}) {
    super(message, 'policy', context);
  }
}

/** The answer does not have the shape ferry expects (a PVE version ferry does not know, or a proxy in the way). */
export class ProxmoxResponseError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}) {
    super(message, 'invalid', context);
  }
}

/** The server certificate could not be verified. */
export class ProxmoxTlsError extends ProxmoxError {
  constructor(message: string, context: ProxmoxErrorContext = {}, cause?: unknown) {
    super(message, 'invalid', context, cause);
  }
}

/**
 * A worker that died of a parameter exception ends `400 Parameter verification failed.` (PVE::Exception
 * puts the HTTP code first); the per-parameter lines are in its log. Retrying cannot fix it.
 */
const PARAMETER_EXIT = /^4\d\d |Parameter verification failed|invalid format -|value must have/;

/**
 * A task ended with an error; `exitstatus` is PVE's, `log` the last lines of the task log. Unknown
 * failures count as transient (I/O trouble, a node briefly away); known and parameter-style ones do not.
 */
export class ProxmoxTaskError extends ProxmoxError {
  constructor(
    readonly upid: string,
    readonly exitstatus: string,
    readonly log: string[],
  ) {
    const category =
      classifyMessage(exitstatus)?.category ?? (PARAMETER_EXIT.test(exitstatus) ? 'invalid' : 'transient');
    super(
      `task ${upid} failed: ${exitstatus}${log.length ? `\n  last log lines:\n    ${log.join('\n    ')}` : ''}`,
      category,
      { upid, exitstatus, log },
    );
  }
}

/** The task did not end before the deadline; it may still be running (details carry the UPID to wait on). */
export class ProxmoxTaskTimeoutError extends ProxmoxError {
  constructor(
    readonly upid: string,
    waitedMs: number,
  ) {
    super(`task ${upid} still running after ${Math.round(waitedMs / 1000)} s`, 'transient', { upid, waitedMs });
  }
}

type Classified = { category: ErrorCategory; make: (message: string, context: ProxmoxErrorContext) => ProxmoxError };

/** PVE messages (HTTP 500 reason or task exit status) whose meaning is known. Checked in order. */
const KNOWN: Array<[RegExp, Classified]> = [
  // qemu-server's PVE::QemuServer::Agent wording.
  [
    /No QEMU guest agent configured/i,
    { category: 'invalid', make: (m, c) => new ProxmoxAgentNotConfiguredError(m, c) },
  ],
  [
    /QEMU guest agent is not running/i,
    { category: 'transient', make: (m, c) => new ProxmoxAgentNotRunningError(m, c) },
  ],
  [
    /is locked|can't lock file|invalid lock token|could not acquire lock/i,
    { category: 'locked', make: (m, c) => new ProxmoxLockedError(m, c) },
  ],
  // qemu-server's and pve-common's wording; a download's "checksum mismatch: got …" is not a conflict.
  [
    /checksum mismatch \(file change by other user\?\)|detected modified configuration/i,
    { category: 'conflict', make: (m, c) => new ProxmoxDigestMismatchError(m, c) },
  ],
  [/VM \d+ is running|is running - /i, { category: 'invalid', make: (m, c) => new ProxmoxVmRunningError(m, c) }],
  [
    /Configuration file .* does not exist|does not exist|doesn't exist|no such (VM|task|cluster node|file)/i,
    { category: 'not-found', make: (m, c) => new ProxmoxNotFoundError(m, c) },
  ],
  [
    /already exists|already defined|already exist in|not supported|unable to parse volume ID|requires special syntax|no options specified|Only root|unsupported|missing vlan tag|max value|wrong type|content type needs|not possible|can't|cannot|not implemented|invalid|pending changes|protection mode/i,
    { category: 'invalid', make: (m, c) => new ProxmoxRequestError(m, c) },
  ],
];

export function classifyMessage(message: string): Classified | undefined {
  return KNOWN.find(([re]) => re.test(message))?.[1];
}

function where(context: ProxmoxErrorContext): string {
  return context.method && context.path ? `${context.method} ${context.path}` : 'Proxmox';
}

/** The typed error for a non-2xx answer. */
export function errorFromResponse(
  status: number,
  pveMessage: string,
  errors: Record<string, string> | undefined,
  context: ProxmoxErrorContext,
): ProxmoxError {
  const ctx = { ...context, status, pveMessage };
  if (status === 400 && errors) return new ProxmoxParameterError(errors, ctx);
  if (status === 401) return new ProxmoxAuthError(ctx);
  if (status === 403) return new ProxmoxPermissionError(ctx);
  const message = `${where(ctx)}: ${pveMessage || `HTTP ${status}`}`;
  if (status === 501) return new ProxmoxRequestError(message, ctx);
  const known = classifyMessage(pveMessage);
  if (known && status < 502) return known.make(message, ctx);
  if (status >= 500) return new ProxmoxTransientError(message, ctx);
  return new ProxmoxRequestError(message, ctx);
}

function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
