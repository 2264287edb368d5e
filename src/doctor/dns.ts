import type { DnsConfig } from '../config';
import { DnsClient } from '../dns/client';
import { DnsError } from '../dns/errors';
import type { EndpointVerdict } from '../domain/doctor';
import { timedCheck } from './verdict';

/**
 * DNS: each configured zone's SOA comes from the server with the authoritative flag, and a signed
 * prerequisite-only update (which changes nothing) is accepted, proving the TSIG key. The version is
 * the server's `version.bind`, when it tells.
 */
export function checkDns(config: DnsConfig, shared?: DnsClient): Promise<EndpointVerdict> {
  // DNS has no TLS; TSIG signs the updates but does not encrypt them.
  const tls = 'plaintext' as const;
  return timedCheck(
    { endpoint: 'dns', target: `${config.server}:${config.port}` },
    async () => {
      const client = shared ?? DnsClient.fromConfig(config); // a bad secret is this check's failure, not a crash
      const answered = await client.serverVersion();
      const version = answered ? `server ${answered}` : undefined;
      if (config.zones.length === 0) {
        return {
          ok: true,
          reachable: answered !== undefined,
          authenticated: null,
          tls,
          version,
          detail: 'no dns.zones configured: set them to let doctor prove the TSIG key on each zone',
        };
      }
      const proven: string[] = [];
      for (const zone of config.zones) {
        const serial = await client.soaSerial(zone);
        await client.proveKey(zone);
        proven.push(`${zone.replace(/\.$/, '')} (serial ${serial})`);
      }
      return {
        ok: true,
        reachable: true,
        authenticated: true,
        tls,
        version,
        detail: `TSIG key ${config.tsigKeyName} (${config.tsigAlgorithm}) accepted for ${proven.join(', ')}`,
      };
    },
    (err) => {
      if (!(err instanceof DnsError) || err.category === 'transient')
        return { reachable: false, authenticated: null, tls };
      return { reachable: true, authenticated: err.category === 'permission' ? false : null, tls };
    },
  );
}
