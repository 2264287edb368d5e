import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { guestImage } from '../../../lab/guest-image/paths';
import { makeGuestDisk } from '../../../lab/guest-image/per-vm-config';
import { FLAVOURS as SCHEMA_FLAVOURS, findSharedSchemaDir, loadSubset } from '../../../lab/proxmox-sim/schema/subset';
import { answerProblems } from '../../helpers/answer-types';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { openWebSocket } from '../../helpers/ws-client';

/**
 * The VM's consoles and the remote-migration routes (routes/console.ts, tunnel.ts, remote-migrate.ts,
 * dbus-vmstate.ts), and the acceptance: no route of the VM lifecycle (every one of the official
 * schema under /nodes/{node}/qemu/{vmid} and /pools) answers 501.
 */
const NODE = 'pve1';
const VM = 4001;
const SPICE_VM = 4002;
const LIFECYCLE = /^\/(nodes\/\{node\}\/qemu\/\{vmid\}|pools)(\/|$)/;

/** The sweep's VM does not exist, so no call of it changes anything (mtunnel creates it: stopped after). */
const SWEEP_VM = 4999;
const fill = (template: string) =>
  template
    .replace('{node}', NODE)
    .replace('{vmid}', String(SWEEP_VM))
    .replace(/\{[^}]+\}/g, 'x');

describe.each(FLAVOURS)('consoles and remote migration, PVE %s', (flavour) => {
  let fx: SimFixture;
  const api = (method: string, p: string, form?: Record<string, string>) =>
    fx.raw(method, `/api2/json/nodes/${NODE}/qemu/${p}`, form ? { form } : {});
  const auth = () => `PVEAPIToken=${fx.credentials.tokenId}=${fx.credentials.tokenSecret}`;
  const taskOf = (upid: string) => fx.sim.cluster.tasks.get(upid)!;

  beforeAll(async () => {
    fx = await startSim(flavour);
    const client = fx.client();
    await client.vms.create({
      node: NODE,
      vmid: VM,
      name: 'console',
      memory: 512,
      extra: { scsi0: 'local-lvm:1', serial0: 'socket' },
    });
    await client.vms.create({ node: NODE, vmid: SPICE_VM, name: 'spicy', memory: 512, extra: { vga: 'qxl' } });
  });
  afterAll(() => fx.stop());

  it('no route under /nodes/{node}/qemu/{vmid} or /pools answers 501', async () => {
    const subset = loadSubset(flavour);
    const routes = Object.entries(subset.endpoints)
      .filter(([p]) => LIFECYCLE.test(p))
      .flatMap(([p, methods]) => Object.keys(methods).map((m) => [m, p] as const));
    // The subset holds every such route of the official dump (when the dump is at hand).
    const dir = findSharedSchemaDir();
    if (dir) {
      const full: Array<{ path: string; info?: Record<string, unknown>; children?: unknown[] }> = JSON.parse(
        readFileSync(path.join(dir, `pve-${SCHEMA_FLAVOURS[flavour]}.json`), 'utf8'),
      );
      const official: string[] = [];
      const walk = (n: { path: string; info?: Record<string, unknown>; children?: unknown[] }) => {
        if (n.info && LIFECYCLE.test(n.path)) for (const m of Object.keys(n.info)) official.push(`${m} ${n.path}`);
        (n.children as typeof full | undefined)?.forEach(walk);
      };
      full.forEach(walk);
      expect(official.filter((r) => !routes.some(([m, p]) => `${m} ${p}` === r))).toEqual([]);
    }
    expect(routes.length).toBeGreaterThan(60);
    const answers: string[] = [];
    for (const [method, template] of routes) {
      const res = await fx.raw(method, `/api2/json${fill(template)}`);
      if (res.status === 501) answers.push(`${method} ${template}`);
    }
    expect(answers).toEqual([]);
    for (const t of fx.sim.cluster.tasks.running()) await fx.sim.cluster.tasks.stop(t.upid);
    if (flavour === '8.4') expect((await api('POST', `${VM}/dbus-vmstate`, { action: 'start' })).status).toBe(501);
  });

  it('vncproxy: a PVEVNC ticket for the user, path and port, a vncproxy task that times out without a client', async () => {
    const res = await api('POST', `${VM}/vncproxy`, { websocket: '1' });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(answerProblems(flavour, 'POST /nodes/{node}/qemu/{vmid}/vncproxy', data)).toEqual([]);
    expect(data).toMatchObject({
      user: fx.credentials.tokenId,
      port: expect.any(Number),
      upid: expect.stringMatching(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8}:[0-9A-F]{8}:vncproxy:4001:/),
    });
    expect(data.port).toBeGreaterThanOrEqual(5900);
    expect(data.password).toMatch(/^[!-~]{8}$/);
    expect(data.ticket).toMatch(new RegExp(`^.{8}:PVEVNC:[0-9A-F]{8}::\\S+$`));
    expect(data.cert).toContain('BEGIN CERTIFICATE');
    // The ticket: good for this port only.
    const ws = await api('GET', `${VM}/vncwebsocket?port=${data.port}&vncticket=${encodeURIComponent(data.ticket)}`);
    expect(ws.body.data).toEqual({ port: String(data.port) });
    expect(answerProblems(flavour, 'GET /nodes/{node}/qemu/{vmid}/vncwebsocket', ws.body.data)).toEqual([]);
    const other = await api(
      'GET',
      `${VM}/vncwebsocket?port=${data.port + 1}&vncticket=${encodeURIComponent(data.ticket)}`,
    );
    expect([other.status, other.statusText]).toEqual([401, 'permission denied - invalid PVEVNC ticket']);
    // A simulated VM has no VNC socket: the client's websocket is taken, then the task fails as qm's relay does.
    const client = await openWebSocket(
      `${fx.sim.url}/api2/json/nodes/${NODE}/qemu/${VM}/vncwebsocket?port=${data.port}&vncticket=${encodeURIComponent(data.ticket)}`,
      fx.sim.caFile,
      auth(),
    );
    expect(client.status).toBe(101);
    await client.closed;
    const task = taskOf(data.upid);
    await task.done;
    expect(task.exitstatus).toBe('Failed to run vncproxy.');
    expect(task.log.join('\n')).toMatch(`VM ${VM} not running`);
  });

  it('vncproxy without a client: "connection timed out" after 10 s', async () => {
    const res = await api('POST', `${VM}/vncproxy`);
    const task = taskOf(res.body.data.upid);
    await task.done;
    expect(task.exitstatus).toBe('connection timed out');
    expect(task.endMs! - task.startMs).toBeGreaterThanOrEqual(9_900);
  }, 20_000);

  it("termproxy: a ticket and a vncproxy task; the session is qm terminal's", async () => {
    const res = await api('POST', `${VM}/termproxy`);
    expect(res.status).toBe(200);
    expect(answerProblems(flavour, 'POST /nodes/{node}/qemu/{vmid}/termproxy', res.body.data)).toEqual([]);
    const { port, ticket, user, upid } = res.body.data;
    expect(upid).toMatch(/:vncproxy:4001:/);
    const client = await openWebSocket(
      `${fx.sim.url}/api2/json/nodes/${NODE}/qemu/${VM}/vncwebsocket?port=${port}&vncticket=${encodeURIComponent(ticket)}`,
      fx.sim.caFile,
      auth(),
    );
    client.send(`${user}:${ticket}\n`);
    const text = (
      await client.received(1000).catch((err: Error) => {
        throw new Error(
          `${err.message}: ${JSON.stringify(taskOf(upid).log)} ${Buffer.concat(client.messages).toString()}`,
        );
      })
    ).toString();
    expect(text).toMatch(/^OK/);
    expect(text).toContain(`VM ${VM} not running`); // serial0 is a socket, the VM is stopped
    await taskOf(upid).done;
  });

  it('spiceproxy: not running, then no SPICE display, then a remote-viewer config', async () => {
    const stopped = await api('POST', `${SPICE_VM}/spiceproxy`);
    expect([stopped.status, stopped.statusText]).toEqual([500, `VM ${SPICE_VM} not running`]);
    await fx.client().power.start(NODE, VM);
    expect((await api('POST', `${VM}/spiceproxy`)).statusText).toBe('no spice port');
    await fx.client().power.start(NODE, SPICE_VM);
    const res = await api('POST', `${SPICE_VM}/spiceproxy`, { proxy: '192.0.2.1' });
    expect(res.status).toBe(200);
    expect(answerProblems(flavour, 'POST /nodes/{node}/qemu/{vmid}/spiceproxy', res.body.data)).toEqual([]);
    expect(res.body.data).toMatchObject({
      type: 'spice',
      title: `VM ${SPICE_VM} - spicy`,
      proxy: 'http://192.0.2.1:3128',
      'tls-port': 61000,
      'delete-this-file': 1,
      host: expect.stringMatching(/^pvespiceproxy:[0-9a-f]{8}:4002:pve1::[0-9a-f]{40}$/),
    });
  });

  it('dbus-vmstate (PVE 9): only for a VM running on the local node', async () => {
    if (flavour !== '9.1') return;
    const stopped = await api('POST', '4099/dbus-vmstate', { action: 'start' });
    expect([stopped.status, stopped.body.errors]).toEqual([
      400,
      { node: "VM 4099 not running locally on node 'pve1'" },
    ]);
    const remoteNode = await fx.raw('POST', `/api2/json/nodes/pve2/qemu/${VM}/dbus-vmstate`, {
      form: { action: 'start' },
    });
    expect(remoteNode.body.errors).toEqual({ node: "node needs to be 'localhost' or local hostname 'pve1'" });
    const ok = await api('POST', `${VM}/dbus-vmstate`, { action: 'stop' });
    expect([ok.status, ok.body.data]).toEqual([200, null]);
  });

  it('mtunnel: a locked empty config, a qmtunnel task, a PVETUNNEL ticket that mtunnelwebsocket checks, the tunnel speaking JSON lines', async () => {
    const taken = await api('POST', `${VM}/mtunnel`);
    expect(taken.body.errors).toEqual({
      vmid: `unable to create empty VM config - VM ${VM} already exists on node 'pve1'`,
    });
    expect((await api('POST', '4010/mtunnel', { storages: 'nosuch' })).status).toBe(500);
    const res = await api('POST', '4010/mtunnel', { storages: 'local-lvm', bridges: 'vmbr0' });
    expect(res.status).toBe(200);
    expect(answerProblems(flavour, 'POST /nodes/{node}/qemu/{vmid}/mtunnel', res.body.data)).toEqual([]);
    const { socket, ticket, upid } = res.body.data;
    expect(socket).toBe('/run/qemu-server/4010.mtunnel');
    expect(upid).toMatch(/:qmtunnel:4010:/);
    expect(fx.sim.cluster.vms.get(4010)?.config).toEqual({ lock: 'create' });
    const bad = await api(
      'GET',
      `4010/mtunnelwebsocket?socket=${encodeURIComponent('/run/qemu-server/4011.mtunnel')}&ticket=${encodeURIComponent(ticket)}`,
    );
    expect([bad.status, bad.statusText]).toEqual([401, 'permission denied - invalid PVETUNNEL ticket']);
    const good = await api(
      'GET',
      `4010/mtunnelwebsocket?socket=${encodeURIComponent(socket)}&ticket=${encodeURIComponent(ticket)}`,
    );
    expect(good.body.data).toEqual({ socket });
    expect(answerProblems(flavour, 'GET /nodes/{node}/qemu/{vmid}/mtunnelwebsocket', good.body.data)).toEqual([]);

    const tunnel = await openWebSocket(
      `${fx.sim.url}/api2/json/nodes/localhost/qemu/4010/mtunnelwebsocket?socket=${encodeURIComponent(socket)}&ticket=${encodeURIComponent(ticket)}`,
      fx.sim.caFile,
      auth(),
    );
    expect(tunnel.status).toBe(101);
    const ask = async (line: object) => {
      const before = Buffer.concat(tunnel.messages).length;
      tunnel.send(`${JSON.stringify(line)}\n`);
      await tunnel.received(before + 1);
      await new Promise((r) => setTimeout(r, 20));
      return JSON.parse(Buffer.concat(tunnel.messages).subarray(before).toString()) as Record<string, unknown>;
    };
    expect(await ask({ cmd: 'version' })).toEqual({ api: 2, age: 0, success: true });
    expect(await ask({ cmd: 'nosuch' })).toEqual({ success: false, msg: "unknown command 'nosuch' given" });
    expect(await ask({ cmd: 'quit', cleanup: 1 })).toEqual({ success: true });
    tunnel.close();
    await taskOf(upid).done;
    expect(taskOf(upid).exitstatus).toBe('OK');
    expect(fx.sim.cluster.vms.has(4010)).toBe(false);
  });

  it("remote_migrate: PVE's checks, then the endpoint, then a qmigrate task that opens the target's tunnel", async () => {
    const post = (form: Record<string, string>) => api('POST', `${VM}/remote_migrate`, form);
    const base = { 'target-storage': 'local-lvm', 'target-bridge': 'vmbr0' };
    const missing = await post({ ...base, 'target-endpoint': 'host=192.0.2.1' });
    expect(missing.body.errors).toEqual({
      'target-endpoint': 'invalid format - property apitoken: property is missing and it is not optional',
    });
    const endpoint = `apitoken=PVEAPIToken=${fx.credentials.tokenId}=${fx.credentials.tokenSecret},host=127.0.0.1,port=${fx.sim.port}`;
    if (fx.sim.cluster.vms.get(VM)!.status !== 'running') await fx.client().power.start(NODE, VM);
    expect((await post({ ...base, 'target-endpoint': endpoint })).statusText).toBe(
      "can't migrate running VM without --online",
    );
    await fx.client().power.stop(NODE, VM);
    expect((await post({ ...base, 'target-storage': '1', 'target-endpoint': endpoint })).statusText).toBe(
      'remote migration requires explicit storage mapping!',
    );
    // Without a fingerprint the remote's certificate must be trusted: the simulator's is not.
    expect((await post({ ...base, 'target-endpoint': endpoint })).statusText).toMatch(
      /^failed to get remote certificate fingerprints - /,
    );
    const unreachable = await post({
      ...base,
      'target-endpoint': `${endpoint.replace(/port=\d+/, 'port=1')},fingerprint=${'AA:'.repeat(31)}AA`,
    });
    expect(unreachable.statusText).toMatch(/ECONNREFUSED/);
    // This very simulator as the remote (its own fingerprint): the task asks it for a tunnel for VM 4020.
    const fingerprint = await new Promise<string>((resolve, reject) => {
      const probe = tlsConnect({ host: fx.sim.host, port: fx.sim.port, ca: readFileSync(fx.sim.caFile) }, () => {
        resolve(probe.getPeerCertificate().fingerprint256);
        probe.end();
      });
      probe.on('error', reject);
    });
    const res = await post({
      ...base,
      'target-endpoint': `${endpoint},fingerprint=${fingerprint}`,
      'target-vmid': '4020',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatch(/:qmigrate:4001:/);
    const task = taskOf(res.body.data);
    await task.done;
    expect(task.exitstatus).toBe('migration aborted: moving a VM through the websocket tunnel is not simulated');
    const tunnel = fx.sim.cluster.tasks.history.find((t) => t.type === 'qmtunnel' && t.id === '4020')!;
    await tunnel.done;
    expect(tunnel.exitstatus).toBe('Exiting mtunnel');
    expect(fx.sim.cluster.vms.has(4020)).toBe(false);
  });
});

/** A VM under real QEMU: vncproxy + vncwebsocket reach its VNC server, which greets with the RFB banner. */
describe("vncwebsocket reaches a real QEMU's VNC server", () => {
  let fx: SimFixture;
  const VMID = 4100;

  beforeAll(async () => {
    fx = await startSim('9.1');
    const importDir = fx.importDir(NODE);
    await makeGuestDisk(
      'mac',
      path.join(importDir, `guest${VMID}.raw`),
      { hostname: `guest${VMID}`, nics: [] },
      guestImage(),
    );
    await fx.client().vms.create(
      {
        node: NODE,
        vmid: VMID,
        name: 'vnc',
        memory: 512,
        boot: 'order=scsi0',
        extra: { scsi0: `local-lvm:0,import-from=local:import/guest${VMID}.raw` },
      },
      { timeoutMs: 60_000 },
    );
    await fx.client().power.start(NODE, VMID);
  }, 120_000);
  afterAll(() => fx.stop());

  it('a noVNC-style client gets "RFB 003.008"', async () => {
    const info = (await fx.raw('GET', `/_sim/vms/${VMID}/qemu`)).body.data;
    expect(info.running).toBe(true);
    expect(info.commandLine).toEqual(expect.arrayContaining(['-vnc', expect.stringMatching(/\.vnc,password=on$/)]));
    const res = await fx.raw('POST', `/api2/json/nodes/${NODE}/qemu/${VMID}/vncproxy`, { form: { websocket: '1' } });
    const { port, ticket, upid } = res.body.data;
    const ws = await openWebSocket(
      `${fx.sim.url}/api2/json/nodes/${NODE}/qemu/${VMID}/vncwebsocket?port=${port}&vncticket=${encodeURIComponent(ticket)}`,
      fx.sim.caFile,
      `PVEAPIToken=${fx.credentials.tokenId}=${fx.credentials.tokenSecret}`,
    );
    expect(ws.status).toBe(101);
    expect((await ws.received(12)).subarray(0, 12).toString('latin1')).toBe('RFB 003.008\n');
    ws.close();
    const task = fx.sim.cluster.tasks.get(upid)!;
    await task.done;
    expect(task.exitstatus).toBe('OK');
    expect(existsSync(info.qmpSocket)).toBe(true);
  }, 60_000);
});
