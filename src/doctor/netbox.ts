import type { NetboxConfig } from '../config';
import type { EndpointVerdict, TlsStatus } from '../domain/doctor';
import { NetboxClient } from '../netbox/client';
import { NetboxError, NetboxTlsError } from '../netbox/errors';
import { timedCheck } from './verdict';

/**
 * NetBox: `/api/status/` answers with the token (reachability, TLS, credentials, version), and ferry's
 * custom fields exist on VMs. Uses the worker's client, or one made from the config for this check.
 */
export async function checkNetbox(config: NetboxConfig, shared?: NetboxClient): Promise<EndpointVerdict> {
  const tls: TlsStatus = config.url.startsWith('http:')
    ? 'plaintext'
    : config.validateCerts
      ? 'verified'
      : 'not-verified';
  const tokenKind = config.token.trim().startsWith('nbt_') ? 'v2' : 'v1';
  let own: NetboxClient | undefined;
  try {
    return await timedCheck(
      { endpoint: 'netbox', target: config.url },
      async () => {
        const client = shared ?? (own = NetboxClient.fromConfig(config, { timeoutMs: 15_000 })); // an unreadable caFile is this check's failure
        const status = await client.status();
        const missing = await client.missingCustomFields();
        return {
          ok: missing.length === 0,
          reachable: true,
          authenticated: true,
          tls,
          version: `NetBox ${status['netbox-version']}`,
          detail:
            missing.length === 0
              ? `${tokenKind} token accepted; ferry's custom fields are present`
              : `${tokenKind} token accepted, but ferry's custom fields are missing (on VMs, interfaces or virtual disks): ${missing.join(', ')}; run \`ferry netbox setup\``,
        };
      },
      (err) => {
        if (err instanceof NetboxTlsError) return { reachable: true, authenticated: null, tls: 'failed' };
        const status = err instanceof NetboxError ? err.status : undefined;
        if (status === undefined) return { reachable: false, authenticated: null, tls };
        return { reachable: true, authenticated: status === 401 || status === 403 ? false : null, tls };
      },
    );
  } finally {
    await own?.close();
  }
}
