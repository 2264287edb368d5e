import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import type { TLSConfig } from '@temporalio/client';
import { ConfigError, type FerryConfig, type TemporalAddressSource } from '../config';

type TemporalConfig = FerryConfig['temporal'];

/** TLS for the Temporal connection: on when configured, when mTLS files are given, or with an API key (Cloud). */
export function temporalTls(config: TemporalConfig): TLSConfig | false {
  const t = config.tls;
  const wanted = t.enabled || Boolean(t.clientCertFile) || Boolean(t.serverCaFile) || Boolean(config.apiKey);
  if (!wanted) return false;
  return {
    serverNameOverride: t.serverName,
    serverRootCACertificate: t.serverCaFile ? readTlsFile('serverCaFile', t.serverCaFile) : undefined,
    clientCertPair:
      t.clientCertFile && t.clientKeyFile
        ? { crt: readTlsFile('clientCertFile', t.clientCertFile), key: readTlsFile('clientKeyFile', t.clientKeyFile) }
        : undefined,
  };
}

/** Reads a file named by temporal.tls.<key>; a failure names the key and the path, not just ENOENT. */
function readTlsFile(key: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new ConfigError([`temporal.tls.${key} (${file}): cannot read it: ${reason}`]);
  }
}

/** Where the address came from (see loadScopedConfig's defaults), so a message can say which value to correct. */
export interface AddressOrigin {
  from?: TemporalAddressSource;
}

/** Temporal's frontend did not answer, or something else answered: one line with the address, where it came from and what to do. */
export class TemporalUnreachable extends Error {
  override name = 'TemporalUnreachable';
}

/** ` (from environment TEMPORAL_ADDRESS)`, ` (temporal.address in ferry.yaml)` or the default's note; '' when unknown. */
function originNote(origin: AddressOrigin): string {
  switch (origin.from?.kind) {
    case 'default':
      return ' (the default address: neither TEMPORAL_ADDRESS nor temporal.address is set)';
    case 'environment':
      return ' (from environment TEMPORAL_ADDRESS)';
    case 'file':
      return ` (temporal.address in ${origin.from.file})`;
    default:
      return '';
  }
}

/** What to correct: the value that set the address. */
function whatToSet(origin: AddressOrigin): string {
  switch (origin.from?.kind) {
    case 'environment':
      return "correct TEMPORAL_ADDRESS (it overrides temporal.address) to the Temporal frontend's host:port";
    case 'file':
      return `correct temporal.address in ${origin.from.file} (or override it with TEMPORAL_ADDRESS) to the Temporal frontend's host:port`;
    default:
      return "set TEMPORAL_ADDRESS or temporal.address in ferry.yaml to the Temporal frontend's host:port";
  }
}

/** The one line for an address that did not answer: the address, where it came from, and which value to correct. */
export function unreachableMessage(address: string, reason: string, origin: AddressOrigin = {}): string {
  return `cannot reach Temporal at ${address}${originNote(origin)}: ${reason}; ${whatToSet(origin)}, and check that it runs`;
}

/** The one line for an address where something answered, but not as Temporal's frontend does. */
export function notTemporalMessage(address: string, reason: string, origin: AddressOrigin = {}): string {
  return `the server at ${address}${originNote(origin)} is not a Temporal frontend (or one too old for ferry): ${reason}; ${whatToSet(origin)} (its gRPC port, 7233 by default; not the UI's)`;
}

/** The reason inside a gRPC or tonic transport error, short: "Connection refused", "no answer within 10 s", … */
export function transportReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const os = /message: "([^"]+)"/.exec(message)?.[1];
  if (os) return os;
  if (/dns error|failed to lookup address/i.test(message)) return 'the host name does not resolve';
  if (/before the deadline|timed? ?out/i.test(message)) return 'no answer before the deadline';
  return message.split('\n')[0]!.slice(0, 200);
}

export function isTransportFailure(err: unknown): boolean {
  const name = (err as { name?: unknown })?.name;
  const message = err instanceof Error ? err.message : '';
  return (
    name === 'TransportError' ||
    /Failed to connect before the deadline|tcp connect error|transport error|UNAVAILABLE/i.test(message)
  );
}

/** gRPC status codes that say the call never reached a Temporal frontend's handler. */
const UNAVAILABLE = 14;
const UNIMPLEMENTED = 12;
const INTERNAL = 13;

/** The gRPC status in an error or its causes (the SDK wraps it: "Failed to describe workflow"). */
function grpcStatus(err: unknown): { code: number; details: string } | undefined {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, details, message } = e as { code?: unknown; details?: unknown; message?: unknown };
    if (typeof code === 'number') return { code, details: String(details || message || `gRPC status ${code}`) };
  }
  return undefined;
}

/**
 * A client call's failure as the one line a person can act on, when it is the connection's fault: no
 * frontend answers there (UNAVAILABLE), or something that is not one does (UNIMPLEMENTED, an HTTP or
 * protocol error). Undefined for every other failure (not found, refused update, …): those say
 * themselves what happened.
 */
export function connectionProblem(err: unknown, address: string, origin: AddressOrigin = {}): string | undefined {
  const status = grpcStatus(err);
  if (!status) return isTransportFailure(err) ? unreachableMessage(address, transportReason(err), origin) : undefined;
  const details = status.details.split('\n')[0]!.slice(0, 200);
  if (status.code === UNAVAILABLE) return unreachableMessage(address, details, origin);
  if (status.code === UNIMPLEMENTED) return notTemporalMessage(address, details, origin);
  if (status.code === INTERNAL && /protocol|HTTP|parse|malformed|RST_STREAM/i.test(details))
    return notTemporalMessage(address, details, origin);
  return undefined;
}

export async function connectClient(config: TemporalConfig, origin: AddressOrigin = {}): Promise<Client> {
  const tls = temporalTls(config);
  let connection: Connection;
  try {
    connection = await Connection.connect({ address: config.address, tls, apiKey: config.apiKey });
  } catch (err) {
    throw explained(err, config.address, origin);
  }
  return new Client({ connection, namespace: config.namespace });
}

/**
 * A client whose connection is made at its first call, not now: a long-running process (the webhook
 * receiver) starts while Temporal is down and answers each call's failure instead of refusing to start.
 */
export function lazyClient(config: TemporalConfig): Client {
  const connection = Connection.lazy({ address: config.address, tls: temporalTls(config), apiKey: config.apiKey });
  return new Client({ connection, namespace: config.namespace });
}

/** `err` as a TemporalUnreachable when the connection is at fault (see connectionProblem), else as it is. */
export function explained(err: unknown, address: string, origin: AddressOrigin = {}): unknown {
  if (err instanceof TemporalUnreachable) return err;
  const problem = connectionProblem(err, address, origin);
  return problem ? new TemporalUnreachable(problem, { cause: err }) : err;
}
