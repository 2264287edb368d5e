import type { ProxmoxConfig } from '../config';
import type { EndpointVerdict, TlsStatus } from '../domain/doctor';
import { ProxmoxAuthError, ProxmoxPermissionError, ProxmoxTlsError, type ProxmoxClient } from '../proxmox';
import { timedCheck } from './verdict';

/**
 * Proxmox: the API answers over TLS (verified unless the endpoint turns it off), ferry's credentials are
 * accepted (`GET /version` needs a valid token or ticket), and which PVE version it is (8 or 9 decides
 * the SDN flow). Then one cluster read shows the credentials can see the cluster.
 */
export function checkProxmox(client: ProxmoxClient, config: ProxmoxConfig): Promise<EndpointVerdict> {
  const tls: TlsStatus = config.validateCerts ? 'verified' : 'not-verified';
  return timedCheck(
    { endpoint: 'proxmox', target: `https://${config.host}:${config.port}` },
    async () => {
      const version = await client.version();
      const vms = await client.vms.list();
      return {
        ok: true,
        reachable: true,
        authenticated: true,
        tls,
        version: `PVE ${version.version}`,
        detail: `${config.auth === 'token' ? `token ${config.user}!${config.tokenId}` : `ticket for ${config.user}`} sees ${vms.length} VM(s); ${version.sdnLock ? 'SDN writes under the PVE 9 lock' : 'SDN without lock (PVE 8)'}`,
      };
    },
    (err) => {
      if (err instanceof ProxmoxTlsError) return { reachable: true, authenticated: null, tls: 'failed' };
      if (err instanceof ProxmoxAuthError || err instanceof ProxmoxPermissionError)
        return { reachable: true, authenticated: false, tls };
      return { reachable: false, authenticated: null, tls };
    },
  );
}
