import { parseConfig } from '../../../src/config';
import { checkProxmox } from '../../../src/doctor/proxmox';
import { createProxmoxClient } from '../../../src/proxmox';
import { startSim, type SimFixture } from '../../helpers/proxmox';

/** The doctor's Proxmox check against the simulator: healthy, wrong token, untrusted certificate. */
describe('doctor: Proxmox check', () => {
  let fx: SimFixture;
  beforeAll(async () => {
    fx = await startSim('8.4');
  });
  afterAll(() => fx.stop());

  const verdict = async (proxmox: Record<string, unknown>, secret = fx.credentials.tokenSecret) => {
    const config = parseConfig(
      { proxmox: { host: '127.0.0.1', port: fx.sim.port, user: 'ferry@pve', tokenId: 'ferry', ...proxmox } },
      { PROXMOX_TOKEN_SECRET: secret },
    );
    const client = createProxmoxClient(config.proxmox!);
    try {
      return await checkProxmox(client, config.proxmox!);
    } finally {
      await client.close();
    }
  };

  it('reports version, verified TLS and what the token sees', async () => {
    const v = await verdict({ caFile: fx.sim.caFile });
    expect(v).toMatchObject({
      endpoint: 'proxmox',
      target: `https://127.0.0.1:${fx.sim.port}`,
      ok: true,
      reachable: true,
      authenticated: true,
      tls: 'verified',
      version: 'PVE 8.4.2',
    });
    expect(v.detail).toBe('token ferry@pve!ferry sees 0 VM(s); SDN without lock (PVE 8)');
  });

  it('says the credentials were refused, without the secret', async () => {
    const v = await verdict({ caFile: fx.sim.caFile }, 'not-the-secret');
    expect(v).toMatchObject({ ok: false, reachable: true, authenticated: false });
    expect(v.detail).toMatch(/authentication refused/);
    expect(JSON.stringify(v)).not.toContain('not-the-secret');
  });

  it('says the certificate is not trusted and how to fix it; reports not-verified TLS when turned off', async () => {
    const untrusted = await verdict({});
    expect(untrusted).toMatchObject({ ok: false, reachable: true, authenticated: null, tls: 'failed' });
    expect(untrusted.detail).toMatch(/caFile/);
    expect(await verdict({ validateCerts: false })).toMatchObject({ ok: true, tls: 'not-verified' });
  });
});
