import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
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

export async function connectClient(config: TemporalConfig): Promise<Client> {
  const connection = await Connection.connect({
    address: config.address,
    tls: temporalTls(config),
    apiKey: config.apiKey,
  });
  return new Client({ connection, namespace: config.namespace });
}

export function connectWorker(config: TemporalConfig): Promise<NativeConnection> {
  return NativeConnection.connect({ address: config.address, tls: temporalTls(config), apiKey: config.apiKey });
}
