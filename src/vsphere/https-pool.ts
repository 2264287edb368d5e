import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { FerryError } from '../errors';

export interface HttpsPoolOptions {
  host: string;
  port: number;
  /** Verify the server certificate. */
  validateCerts: boolean;
  /** PEM file with the CA (or self-signed certificate) to trust. */
  caFile?: string;
  connections: number;
}

/** `https://host:port`, with an IPv6 address in brackets. */
export function vcenterOrigin(host: string, port: number): string {
  return `https://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/**
 * A keep-alive pool to vCenter with ferry's TLS settings: vim25 (SOAP) and the Automation API (REST)
 * trust the same CA the same way, and a CA file that cannot be read is a configuration error naming it.
 */
export function vcenterPool(options: HttpsPoolOptions): Pool {
  let ca: string | undefined;
  if (options.caFile) {
    try {
      ca = readFileSync(options.caFile, 'utf8');
    } catch (err) {
      throw new FerryError(`vsphere.caFile ${options.caFile} cannot be read: ${(err as Error).message}`, 'invalid');
    }
  }
  return new Pool(vcenterOrigin(options.host, options.port), {
    connections: options.connections,
    connect: { ca, rejectUnauthorized: options.validateCerts, timeout: 15_000 },
    keepAliveTimeout: 30_000,
  });
}
