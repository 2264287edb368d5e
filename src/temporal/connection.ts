import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import type { TLSConfig } from '@temporalio/client';
import { ConfigError, type FerryConfig } from '../config';

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

/** How the address was chosen, for messages: `default` when neither TEMPORAL_ADDRESS nor temporal.address set it. */
export interface AddressOrigin {
  defaultAddress?: boolean;
}

/** Temporal's frontend did not answer: one line with the address, where it came from and how to set it. */
export class TemporalUnreachable extends Error {
  override name = 'TemporalUnreachable';
}

/** The one line for an address that did not answer; says when it is the built-in default. */
export function unreachableMessage(address: string, reason: string, origin: AddressOrigin = {}): string {
  const which = origin.defaultAddress
    ? ` (the default address: neither TEMPORAL_ADDRESS nor temporal.address is set)`
    : '';
  return `cannot reach Temporal at ${address}${which}: ${reason}; set TEMPORAL_ADDRESS or temporal.address in ferry.yaml to its frontend's host:port, and check that it runs`;
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

export async function connectClient(config: TemporalConfig, origin: AddressOrigin = {}): Promise<Client> {
  const tls = temporalTls(config);
  let connection: Connection;
  try {
    connection = await Connection.connect({ address: config.address, tls, apiKey: config.apiKey });
  } catch (err) {
    throw isTransportFailure(err)
      ? new TemporalUnreachable(unreachableMessage(config.address, transportReason(err), origin), { cause: err })
      : err;
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
