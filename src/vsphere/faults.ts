import { FerryError, type ErrorCategory, type FerryErrorOptions } from '../errors';
import { child, type XmlElement } from './xml';

/**
 * vim25 fault types by what a caller can do about them. Types not listed are `invalid`: vCenter's
 * faults are overwhelmingly about the request, and retrying a wrong request only repeats it.
 */
const FAULT_CATEGORIES: Record<string, ErrorCategory> = {
  // The session is gone (expired, or lost on the way): the client logs in again; a wrong password is InvalidLogin.
  NotAuthenticated: 'transient',
  InvalidLogin: 'permission',
  NoPermission: 'permission',
  NoPermissionOnHost: 'permission',
  RestrictedVersion: 'permission',
  ManagedObjectNotFound: 'not-found',
  NotFound: 'not-found',
  FileNotFound: 'not-found',
  TaskInProgress: 'locked',
  ResourceInUse: 'locked',
  ConcurrentAccess: 'conflict',
  HostCommunication: 'transient',
  HostNotConnected: 'transient',
  HostNotReachable: 'transient',
  NoHost: 'transient',
  Timedout: 'transient',
  SystemError: 'transient',
  RequestCanceled: 'transient',
  NetworkDisruptedAndConfigRolledBack: 'transient',
  InsufficientResourcesFault: 'transient',
};

/**
 * A fault's category; `message` (with the fault's facts) refines one case: ManagedObjectNotFound of a
 * session-scoped object (`obj=session[…]…`: a ContainerView or PropertyFilter, which live as long as
 * the session that made them) means the session was lost and logged in again, not that the object the
 * caller asked about is gone: a retry makes the view again.
 */
export function faultCategory(faultType: string, message = ''): ErrorCategory {
  if (faultType === 'ManagedObjectNotFound' && /\bobj=session\[/.test(message)) return 'transient';
  return FAULT_CATEGORIES[faultType] ?? 'invalid';
}

export interface FaultContext {
  /** The SOAP method (`RelocateVM_Task`) or task name that failed. */
  method: string;
  /** The object it was called on (`VirtualMachine:vm-42`). */
  object?: string;
}

/** A vim25 fault, from a SOAP fault or a task's `info.error`, with its type (`InvalidPowerState`, …). */
export class VsphereFault extends FerryError {
  constructor(
    readonly faultType: string,
    readonly faultMessage: string,
    readonly context: FaultContext,
    options: FerryErrorOptions = {},
  ) {
    const on = context.object ? ` on ${context.object}` : '';
    super(
      `vSphere ${context.method}${on} failed with ${faultType}${faultMessage ? `: ${faultMessage}` : ''}`,
      faultCategory(faultType, faultMessage),
      {
        ...options,
        details: { faultType, method: context.method, object: context.object, ...options.details },
      },
    );
  }
}

/** The server cannot be reached, or the connection broke (includes TLS failures, which are not transient). */
export class VsphereConnectionError extends FerryError {}

/** An HTTP answer that is not a SOAP answer (proxy errors, 404 for a wrong path, …). */
export class VsphereHttpError extends FerryError {}

/** An answer ferry cannot read: not XML, or not the shape the vim25 schema promises. Says where. */
export class VsphereResponseError extends FerryError {}

/** An operation stopped because its caller cancelled it (an activity cancellation, for instance). */
export class VsphereCancelledError extends FerryError {
  constructor(message: string) {
    super(message, 'policy');
  }
}

/** A guest did not stop in time and the shutdown policy does not allow powering it off. */
export class GuestShutdownTimeout extends FerryError {
  constructor(message: string, details: Record<string, unknown>) {
    super(message, 'policy', { details });
  }
}

/**
 * The session was lost and renewed in the middle of an operation that holds session-bound objects
 * (views, paging tokens): the whole operation must start again.
 */
export class VsphereSessionRenewed extends FerryError {
  constructor(method: string) {
    super(
      `the vSphere session was lost during ${method} and has been renewed; the operation must restart`,
      'transient',
    );
  }
}

/** Leaf values of a fault element worth showing (`existingState=poweredOff`), never nested objects. */
function faultFacts(fault: XmlElement): string {
  return fault.children
    .filter((c) => c.children.length === 0 && c.text !== '' && c.name !== 'faultMessage')
    .map((c) => `${c.name}=${c.text}`)
    .join(', ');
}

/** The fault type of a `detail/*` or `info.error/fault` element: its xsi:type, else its name minus `Fault`. */
export function faultTypeOf(fault: XmlElement): string {
  return fault.xsiType ?? fault.name.replace(/Fault$/, '');
}

/** `<soapenv:Fault>` → VsphereFault. */
export function faultFromSoap(faultElement: XmlElement, context: FaultContext): VsphereFault {
  const detail = child(faultElement, 'detail');
  const fault = detail?.children[0];
  const faultType = fault ? faultTypeOf(fault) : (child(faultElement, 'faultcode')?.text ?? 'UnknownFault');
  const text = child(faultElement, 'faultstring')?.text.trim() ?? '';
  const facts = fault ? faultFacts(fault) : '';
  const message = [text, facts && `(${facts})`].filter(Boolean).join(' ');
  return new VsphereFault(faultType, message, context);
}

/** A task's `info.error` (LocalizedMethodFault) → VsphereFault. */
export function faultFromLocalized(error: XmlElement, context: FaultContext): VsphereFault {
  const fault = child(error, 'fault');
  const faultType = fault ? faultTypeOf(fault) : 'UnknownFault';
  const localized = child(error, 'localizedMessage')?.text.trim() ?? '';
  const facts = fault ? faultFacts(fault) : '';
  // vcsim puts the Go type name (`*types.InvalidState`) in localizedMessage; it says nothing more.
  const text = localized.startsWith('*types.') ? '' : localized;
  const message = [text, facts && `(${facts})`].filter(Boolean).join(' ');
  return new VsphereFault(faultType, message, context);
}

export function isNotAuthenticated(err: unknown): boolean {
  return err instanceof VsphereFault && err.faultType === 'NotAuthenticated';
}
