import { checkVsphere } from '../../../src/doctor/vsphere';
import { freePort } from '../../../lab/free-port';
import { startTestVcsim, type TestVcsim } from '../../helpers/vcsim';

describe('doctor: vSphere check against vcsim', () => {
  jest.setTimeout(60_000);
  let sim: TestVcsim;

  beforeAll(async () => {
    sim = await startTestVcsim();
  });
  afterAll(() => sim?.stop());

  it('reports reachability, login, verified TLS and the version', async () => {
    const v = await checkVsphere(sim.config);
    expect(v).toMatchObject({
      endpoint: 'vsphere',
      ok: true,
      reachable: true,
      authenticated: true,
      tls: 'verified',
      target: `https://127.0.0.1:${sim.config.port}/sdk`,
    });
    expect(v.version).toMatch(/^VMware vCenter Server .* \(API 8\.0\.3\.0\)$/);
    expect(v.detail).toBe('logged in as ferry');
  });

  it('tells a refused login from an untrusted certificate from nothing listening', async () => {
    const badLogin = await checkVsphere({ ...sim.config, password: 'nope' });
    expect(badLogin).toMatchObject({ ok: false, reachable: true, authenticated: false, tls: 'verified' });
    expect(badLogin.detail).toMatch(/InvalidLogin/);

    const untrusted = await checkVsphere({ ...sim.config, caFile: undefined });
    expect(untrusted).toMatchObject({ ok: false, reachable: false, authenticated: null, tls: 'failed' });
    expect(untrusted.detail).toMatch(/TLS: .*not trusted/);

    const unverified = await checkVsphere({ ...sim.config, caFile: undefined, validateCerts: false });
    expect(unverified).toMatchObject({ ok: true, tls: 'not-verified' });
    expect(unverified.detail).toMatch(/NOT verified/);

    const nobody = await checkVsphere({ ...sim.config, port: await freePort() });
    expect(nobody).toMatchObject({ ok: false, reachable: false, authenticated: null });
    expect(nobody.detail).toMatch(/cannot reach vSphere at https:\/\/127\.0\.0\.1:\d+\/sdk .*ECONNREFUSED/);
  });
});
