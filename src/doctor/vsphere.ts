import type { VsphereConfig } from '../config';
import type { EndpointVerdict } from '../domain/doctor';
import { VsphereClient, VsphereConnectionError, VsphereFault } from '../vsphere';
import { timedCheck } from './verdict';

/**
 * vCenter: reachable over HTTPS (certificate verified unless `validateCerts: false`), answers vim25
 * (About.fullName, apiVersion), and takes the configured login. Uses a client of its own, so a session
 * cached elsewhere cannot hide a broken password; logs out afterwards.
 */
export async function checkVsphere(config: VsphereConfig): Promise<EndpointVerdict> {
  const client = new VsphereClient(config, { timeoutMs: 15_000 });
  const tls = client.tls;
  try {
    return await timedCheck(
      { endpoint: 'vsphere', target: client.url },
      async () => {
        const about = await client.about();
        await client.login();
        return {
          ok: true,
          reachable: true,
          authenticated: true,
          tls,
          version: `${about.fullName} (API ${about.apiVersion})`,
          detail: `logged in as ${config.user}${tls === 'not-verified' ? '; the certificate is NOT verified (validateCerts: false)' : ''}`,
        };
      },
      (err) => {
        if (err instanceof VsphereFault)
          return { reachable: true, authenticated: err.category === 'permission' ? false : null, tls };
        const tlsFailed = err instanceof VsphereConnectionError && err.details?.tls === 'failed';
        return { reachable: false, authenticated: null, tls: tlsFailed ? 'failed' : tls };
      },
    );
  } finally {
    await client.close();
  }
}
