import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { GuestInterface } from '../../../lab/guest-image/guest-agent-client';
import { guestImage } from '../../../lab/guest-image/paths';
import { makeGuestDisk } from '../../../lab/guest-image/per-vm-config';
import { type SimulatorAdmin } from '../../../lab/proxmox-sim/admin-client';
import { AGENT_COMMANDS } from '../../../lab/proxmox-sim/schema/agent-endpoints';
import { checkReturns, type ReturnsSchema } from '../../../lab/proxmox-sim/schema/returns';
import { loadSubset } from '../../../lab/proxmox-sim/schema/subset';
import { ProxmoxTaskError, type ProxmoxClient } from '../../../src/proxmox';
import { answerProblems } from '../../helpers/answer-types';
import { failure, startSim, type SimFixture } from '../../helpers/proxmox';
import { readBanner } from '../../helpers/tcp-banner';

/**
 * The simulator runs a VM whose disk holds a bootable image under real QEMU (the lab's Debian guest,
 * imported with import-from), and the power and agent endpoints act on it as qemu-server does: start
 * launches QEMU from the config, status/current reads the live process and QMP, the agent endpoints
 * talk to the real qemu-guest-agent, shutdown goes through the guest, stop ends the process.
 */
const NODE = 'pve1';
const VMID = 700;
const MAC = 'BC:24:11:07:00:01';
const ADDRESS = '192.0.2.10';

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const processAlive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

describe('the Proxmox simulator runs real QEMU guests', () => {
  const image = guestImage();
  let fx: SimFixture;
  let client: ProxmoxClient;
  let admin: SimulatorAdmin;
  const api = (method: string, p: string, form?: Record<string, string>) =>
    fx.raw(method, `/api2/json/nodes/${NODE}/qemu/${p}`, form ? { form } : {});
  const returnsOf = (template: string, method: 'GET' | 'POST') =>
    loadSubset('9.1').endpoints[`/nodes/{node}/qemu/{vmid}/${template}`]![method]!.returns as ReturnsSchema;

  beforeAll(async () => {
    fx = await startSim('9.1');
    client = fx.client();
    admin = fx.admin();
    // The VM's own copy of the lab guest, its MAC and address written in, as an importable volume.
    const importDir = fx.importDir(NODE);
    await makeGuestDisk(
      'mac',
      path.join(importDir, `guest${VMID}.raw`),
      { hostname: `guest${VMID}`, nics: [{ mac: MAC, address: `${ADDRESS}/24`, gateway: '192.0.2.254' }] },
      image,
    );
    await client.vms.create(
      {
        node: NODE,
        vmid: VMID,
        name: `guest${VMID}`,
        memory: 512,
        cores: 1,
        agent: true,
        scsihw: 'virtio-scsi-single',
        boot: 'order=scsi0;net0',
        extra: { scsi0: `local-lvm:0,import-from=local:import/guest${VMID}.raw`, net0: `virtio=${MAC},bridge=vmbr0` },
      },
      { timeoutMs: 60_000 },
    );
    // Two VMs without a bootable disk: simulated power state, as before.
    await client.vms.create({
      node: NODE,
      vmid: 701,
      name: 'no-agent',
      memory: 512,
      extra: { scsi0: 'local-lvm:1', net0: 'virtio,bridge=vmbr0' },
    });
    await client.vms.create({
      node: NODE,
      vmid: 702,
      name: 'simulated',
      memory: 512,
      agent: true,
      extra: { scsi0: 'local-lvm:1' },
    });
  }, 90_000);

  afterAll(async () => {
    const pid = (fx?.sim && (await fx.raw('GET', `/_sim/vms/${VMID}/qemu`)).body?.data?.pid) as number | undefined;
    await fx?.stop();
    if (pid) expect(processAlive(pid)).toBe(false); // the simulator's stop leaves no QEMU behind
  });

  let pid: number;
  let startedAt: number;
  let probePort: number;

  it('status/start launches QEMU from the config: running, its pid and uptime, qmpstatus from QMP, agent, the forwards', async () => {
    startedAt = Date.now();
    const started = await client.power.start(NODE, VMID, { timeoutMs: 60_000 });
    expect(started.task?.exitstatus).toBe('OK');
    const status = (await api('GET', `${VMID}/status/current`)).body.data;
    expect(status).toMatchObject({
      status: 'running',
      qmpstatus: 'running',
      agent: 1,
      vmid: VMID,
      name: `guest${VMID}`,
      'running-qemu': expect.stringMatching(/^\d+\.\d+\.\d+$/),
    });
    expect(checkReturns(returnsOf('status/current', 'GET'), status)).toEqual([]);
    pid = status.pid;
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]).toBe('qemu-system-x86_64');
    expect(status.uptime).toBeGreaterThanOrEqual(0);

    const qemu = await admin.qemu(VMID);
    if (!qemu.running) throw new Error('the admin API does not list the running QEMU');
    expect(qemu.pid).toBe(pid);
    expect(qemu.accel).toBe('tcg');
    expect(qemu.commandLine).toEqual(
      expect.arrayContaining(['-machine', 'type=pc', '-accel', 'tcg,thread=single', '-m', '512']),
    );
    expect(qemu.commandLine).toContain(
      `virtio-net-pci,mac=${MAC},netdev=net0,bus=pci.0,addr=0x12,id=net0,bootindex=101`,
    );
    expect(qemu.commandLine).toContain('virtserialport,chardev=qga0,name=org.qemu.guest_agent.0');
    // The guest's address came from its own settings on the disk; every forward binds loopback.
    expect(qemu.forwards.map((f) => [f.nic, f.mac, f.hostAddress, f.guestAddress, f.guestPort])).toEqual([
      ['net0', MAC, '127.0.0.1', ADDRESS, image.manifest.probe.port],
      ['net0', MAC, '127.0.0.1', ADDRESS, 22],
    ]);
    probePort = qemu.forwards[0]!.hostPort;
    expect((await admin.qemuList()).map((q) => q.vmid)).toEqual([VMID]);
  }, 90_000);

  it('agent/ping: "QEMU guest agent is not running" while the guest boots, then the real agent answers', async () => {
    const early = await api('POST', `${VMID}/agent/ping`);
    expect([early.status, early.body.message]).toEqual([500, 'QEMU guest agent is not running\n']);
    const ping = await until(
      'the guest agent to answer ping',
      async () => {
        const r = await api('POST', `${VMID}/agent/ping`);
        return r.status === 200 ? r.body.data : undefined;
      },
      600_000,
      250,
    ); // a deadline, not a timing: a loaded 2-core machine took minutes under TCG
    expect(ping).toEqual({ result: {} });
    const seconds = (Date.now() - startedAt) / 1000;
    process.stdout.write(`boot to agent (status/start to agent/ping, TCG, SeaBIOS): ${seconds.toFixed(1)} s\n`);
  }, 620_000);

  it('agent/get-osinfo, agent/get-fsinfo and agent/network-get-interfaces answer from the guest, wrapped in {result}', async () => {
    const os = (await api('GET', `${VMID}/agent/get-osinfo`)).body.data;
    expect(os.result).toMatchObject({ id: 'debian', 'version-id': '12', machine: 'x86_64' });
    expect(checkReturns(returnsOf('agent/get-osinfo', 'GET'), os)).toEqual([]);
    // Right after the first ping a starved guest may not answer yet (null data): asked again within a deadline.
    const fs = await until(
      'agent/get-fsinfo',
      async () => (await api('GET', `${VMID}/agent/get-fsinfo`)).body.data ?? undefined,
      60_000,
    );
    expect(fs.result).toEqual(expect.arrayContaining([expect.objectContaining({ mountpoint: '/', type: 'ext4' })]));
    // systemd-networkd may set the address a moment after the agent starts.
    const nic = await until(
      `${ADDRESS}/24 on the NIC with MAC ${MAC}`,
      async () => {
        const r = await api('GET', `${VMID}/agent/network-get-interfaces`);
        const found = (r.body.data?.result as GuestInterface[] | undefined)?.find(
          (i) => i['hardware-address'] === MAC.toLowerCase(),
        );
        return found?.['ip-addresses']?.some((a) => a['ip-address'] === ADDRESS && a.prefix === 24) ? found : undefined;
      },
      30_000,
    );
    expect(nic.name).toBe('ens18'); // PVE's slot for net0
    // The old generic endpoint and the index.
    expect((await api('POST', `${VMID}/agent`, { command: 'get-host-name' })).body.data).toEqual({
      result: { 'host-name': `guest${VMID}` },
    });
    expect((await api('GET', `${VMID}/agent`)).body.data).toEqual(
      expect.arrayContaining([{ name: 'ping' }, { name: 'network-get-interfaces' }, { name: 'exec' }]),
    );
  }, 180_000);

  it('every agent route but the four that suspend or stop the guest answers from the real agent in the types PVE gives', async () => {
    const agent = (route: string) => `/nodes/{node}/qemu/{vmid}/agent${route}`;
    const call = async (route: string, form: Record<string, string> = {}) => {
      const [method, template] = route.split(' ') as [string, string];
      const query = method === 'GET' && Object.keys(form).length > 0 ? `?${new URLSearchParams(form)}` : '';
      const r = await fx.raw(
        method,
        `/api2/json${template.replace('{node}', NODE).replace('{vmid}', String(VMID))}${query}`,
        method === 'GET' ? {} : { form },
      );
      expect([route, r.status, r.body?.message]).toEqual([route, 200, undefined]);
      expect([route, answerProblems('9.1', route, r.body.data)]).toEqual([route, []]);
      return r.body.data;
    };
    for (const [command, method] of Object.entries(AGENT_COMMANDS)) {
      if (
        ['suspend-hybrid', 'suspend-ram', 'suspend-disk', 'shutdown', 'fsfreeze-freeze', 'fsfreeze-thaw'].includes(
          command,
        )
      )
        continue;
      await call(`${method} ${agent(`/${command}`)}`);
    }
    // Frozen file systems, then thawed: the agent counts them.
    expect((await call(`POST ${agent('/fsfreeze-freeze')}`)).result).toBeGreaterThan(0);
    expect((await call(`POST ${agent('/fsfreeze-status')}`)).result).toBe('frozen');
    expect((await call(`POST ${agent('/fsfreeze-thaw')}`)).result).toBeGreaterThan(0);
    await call(`GET ${agent('')}`);
    await call(`POST ${agent('')}`, { command: 'get-time' });
    // exec and its status (the output decoded, `exited` 0/1), a file written and read back, a password.
    const { pid } = await call(`POST ${agent('/exec')}`, { command: 'cat', 'input-data': 'ferry\n' });
    const done = await until(
      'exec to end',
      async () => {
        const status = await call(`GET ${agent('/exec-status')}`, { pid: String(pid) });
        return status.exited === 1 ? status : undefined;
      },
      60_000,
      250,
    );
    expect(done).toMatchObject({ exited: 1, exitcode: 0, 'out-data': 'ferry\n' });
    expect(
      await call(`POST ${agent('/file-write')}`, { file: '/tmp/ferry-probe', content: 'written by the API' }),
    ).toBeNull();
    expect(await call(`GET ${agent('/file-read')}`, { file: '/tmp/ferry-probe' })).toEqual({
      content: 'written by the API',
      'bytes-read': 18,
    });
    expect(await call(`POST ${agent('/set-user-password')}`, { username: 'root', password: 'ferry-lab-pass' })).toEqual(
      { result: {} },
    );
  }, 240_000);

  it("a TCP probe through the forwarded loopback port reaches the guest's service", async () => {
    const banner = await until('the probe banner through the forwarded port', () => readBanner(probePort), 180_000);
    expect(banner).toBe(`${image.manifest.probe.banner} guest${VMID}`);
  }, 200_000);

  it('status/shutdown asks the guest (its agent answers: guest-shutdown) and the VM stops cleanly: qmpstatus stopped, process gone', async () => {
    const result = await client.power.shutdown(NODE, VMID, { timeoutS: 60 });
    expect(result.task?.exitstatus).toBe('OK');
    const status = (await api('GET', `${VMID}/status/current`)).body.data;
    expect(status).toMatchObject({ status: 'stopped', qmpstatus: 'stopped', uptime: 0 });
    expect(status.pid).toBeUndefined();
    expect(processAlive(pid)).toBe(false);
    expect(await admin.qemu(VMID)).toMatchObject({ running: false });
    const serial = readFileSync((await admin.qemu(VMID)).serialLog!, 'utf8');
    expect(serial).toMatch(/reboot: Power down/);
    // The boot itself, on SeaBIOS (the only direct SeaBIOS boot; guest-image/boot.test boots OVMF): the
    // kernel on the serial console, the address set on the interface matched by MAC, the agent started.
    const mac = MAC.toLowerCase();
    expect(serial).toContain('Linux version');
    expect(serial).toContain(
      `ferry-guest-config: NIC0 ${mac}: ${ADDRESS}/24 via 192.0.2.254 on the interface with MACAddress=${mac}`,
    );
    expect(serial).toMatch(/Started .*qemu-guest-agent\.service/);
  }, 90_000);

  it('agent errors as qemu-server words them: VM not running, no agent configured, agent not answering', async () => {
    const stopped = await api('POST', `${VMID}/agent/ping`);
    expect([stopped.status, stopped.body.message]).toEqual([500, `VM ${VMID} is not running\n`]);
    const noAgent = await api('GET', '701/agent/network-get-interfaces');
    expect([noAgent.status, noAgent.body.message]).toEqual([500, 'No QEMU guest agent configured\n']);
    await client.power.start(NODE, 702);
    const simulated = await api('GET', '702/agent/get-osinfo');
    expect([simulated.status, simulated.body.message]).toEqual([500, 'QEMU guest agent is not running\n']);
    // Without a bootable disk nothing runs: the simulated power state as before.
    expect(await admin.qemu(702)).toMatchObject({ running: false });
    expect((await client.power.status(NODE, 702)).status).toBe('running');
    await client.power.stop(NODE, 702);
  }, 30_000);

  it('status/shutdown honours timeout (PVE\'s "got timeout" failure) and forceStop (kills, WARNINGS)', async () => {
    // A second into its boot the guest neither has its agent up nor reacts to ACPI yet: each shutdown comes
    // right after a start (a few seconds later the guest would power down in time and the force go unused).
    await client.power.start(NODE, VMID, { timeoutMs: 60_000 });
    const { pid: first } = (await api('GET', `${VMID}/status/current`)).body.data;
    const forced = await client.power.shutdown(NODE, VMID, { timeoutS: 1, forceStop: true });
    expect(forced.task?.exitstatus).toMatch(/^WARNINGS: \d+$/);
    expect(forced.task?.warningLines).toContain('WARN: VM still running - terminating now with SIGTERM');
    expect(processAlive(first)).toBe(false);
    expect((await client.power.status(NODE, VMID)).status).toBe('stopped');

    await client.power.start(NODE, VMID, { timeoutMs: 60_000 });
    const timedOut = await failure(() => client.power.shutdown(NODE, VMID, { timeoutS: 1 }));
    expect(timedOut).toBeInstanceOf(ProxmoxTaskError);
    expect(timedOut.exitstatus).toBe('VM quit/powerdown failed - got timeout');
    expect(timedOut.log).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^WARN: QEMU Guest Agent is not running - VM 700 qga command 'guest-ping' failed - got timeout$/,
        ),
      ]),
    );
    const running = (await api('GET', `${VMID}/status/current`)).body.data;
    expect(running).toMatchObject({ status: 'running', qmpstatus: 'running' });
    await client.power.stop(NODE, VMID);
    expect(processAlive(running.pid)).toBe(false);
  }, 60_000);

  it("status/stop ends a running VM's process at once", async () => {
    await client.power.start(NODE, VMID, { timeoutMs: 60_000 });
    const { pid: running } = (await api('GET', `${VMID}/status/current`)).body.data;
    expect(processAlive(running)).toBe(true);
    const stopped = await client.power.stop(NODE, VMID);
    expect(stopped.task?.exitstatus).toBe('OK');
    expect(processAlive(running)).toBe(false);
    expect((await api('GET', `${VMID}/status/current`)).body.data).toMatchObject({
      status: 'stopped',
      qmpstatus: 'stopped',
    });
  }, 60_000);
});
