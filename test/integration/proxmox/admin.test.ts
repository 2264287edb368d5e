import { apiWrites, peakConcurrency, SimulatorAdmin } from '../../../lab/proxmox-sim/admin-client';
import { ProxmoxTransientError, type ProxmoxClient } from '../../../src/proxmox';
import { failure, startSim, type SimFixture } from '../../helpers/proxmox';

/** The admin endpoint (outside /api2/json), as tests of other parts drive a simulator in another process. */
describe('simulator admin endpoint', () => {
  let fx: SimFixture;
  let admin: SimulatorAdmin;
  let pve: ProxmoxClient;
  beforeAll(async () => {
    fx = await startSim('9.1');
    admin = fx.admin();
    pve = fx.client();
  });
  afterAll(async () => {
    await fx.stop();
  });

  it('logs every API request with method, path and times, so a test can assert that nothing was written', async () => {
    await admin.clearLog();
    await pve.vms.list();
    await pve.vms.findById(12345);
    const log = await admin.log();
    expect(log.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /cluster/resources',
      'GET /cluster/resources',
      'GET /cluster/nextid',
    ]);
    expect(apiWrites(log.requests)).toEqual([]);
    for (const r of log.requests) expect(r.endMs).toBeGreaterThanOrEqual(r.startMs);
    await pve.vms.create({ node: 'pve1', vmid: 500, name: 'logged' });
    expect(apiWrites((await admin.log()).requests).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /nodes/pve1/qemu 200',
    ]);
  });

  it('records tasks with start and end, from which the peak concurrency of imports is read', async () => {
    await admin.setSettings({ createTaskMs: 200 });
    await Promise.all([501, 502, 503].map((vmid) => pve.vms.create({ node: 'pve2', vmid, name: `c${vmid}` })));
    await pve.vms.create({ node: 'pve2', vmid: 504, name: 'c504' });
    const { tasks } = await admin.log();
    expect(peakConcurrency(tasks, (t) => t.type === 'qmcreate' && t.node === 'pve2')).toBe(3);
    expect(peakConcurrency(tasks, (t) => t.imports > 0)).toBe(0);
    await admin.setSettings({ createTaskMs: 30 });
  });

  it('sets faults and guest behaviour, and dumps state', async () => {
    await admin.setFaults({ seed: 1, errorRate: 1 });
    expect(await failure(() => pve.version())).toBeInstanceOf(ProxmoxTransientError);
    await admin.clearFaults();
    expect((await pve.version()).version).toBe('9.1.3');
    await admin.setGuest(500, { guestAcpi: false });
    const state = (await admin.state()) as {
      vms: Array<{ vmid: number; guestAcpi: boolean; config: Record<string, string> }>;
    };
    expect(state.vms.find((v) => v.vmid === 500)).toMatchObject({ guestAcpi: false, config: { name: 'logged' } });
    await expect(admin.setFaults({ seed: 1, errorRate: 2 } as never)).rejects.toThrow(
      /HTTP 400 invalid fault settings: .*errorRate/,
    );
  });

  it('requires an admin token', async () => {
    const audit = new SimulatorAdmin(fx.sim.url, fx.sim.caFile, {
      id: fx.credentials.auditTokenId,
      secret: fx.credentials.auditTokenSecret,
    });
    await expect(audit.state()).rejects.toThrow(/HTTP 403/);
    await audit.close();
  });
});
