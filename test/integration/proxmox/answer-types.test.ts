import { readFileSync } from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { AGENT_BASE } from '../../../lab/proxmox-sim/schema/agent-endpoints';
import { PERL_TYPES, SCHEMA_DEVIATIONS } from '../../../lab/proxmox-sim/schema/perl-types';
import { SAMPLE_POOL } from '../../../lab/proxmox-sim/sample-cluster';
import { loadSubset } from '../../../lab/proxmox-sim/schema/subset';
import { allRoutes, answerProblems, routeCaller, type RouteCaller } from '../../helpers/answer-types';
import { FLAVOURS, startSim, type SimFixture } from '../../helpers/proxmox';
import { rootTicket } from '../../helpers/pve-fixtures';
import { sweepStartupReads } from '../../helpers/startup-reads';

/**
 * Every route the simulator serves, called with a successful request on each flavour, answers in the
 * shape of the official schema's `returns` with PVE's 0/1 booleans, and with the JSON types PVE's Perl
 * code writes (lab/proxmox-sim/schema/perl-types.ts: string vs number, "1" vs 1); only PVE's own
 * deviations from its schema are accepted. The guest agent's routes need a real guest: their answers are
 * held to the same in answer-types-guest.test.ts.
 */
const isAgentRoute = (route: string) => route.split(' ')[1]!.startsWith(AGENT_BASE);

describe.each(FLAVOURS)('answer types of every route, PVE %s', (flavour) => {
  let fx: SimFixture;
  let api: RouteCaller;
  let asRoot: RouteCaller;
  const VM = '3001';
  const TEMPLATE = '3002';
  const SCRATCH = '3010';

  /** A task route: its UPID answer checked, then the task must end OK. */
  async function task(route: string, params: Record<string, string>, form?: Record<string, string>): Promise<void> {
    const upid = (await api.call(route, params, form)) as string;
    expect(upid).toMatch(/^UPID:/);
    const t = fx.sim.cluster.tasks.get(upid)!;
    await t.done;
    expect([route, t.exitstatus]).toEqual([route, 'OK']);
  }

  beforeAll(async () => {
    fx = await startSim(flavour);
    const fill = { node: 'pve1', vmid: VM, storage: 'local-lvm', poolid: SAMPLE_POOL };
    api = routeCaller(fx, flavour, fill);
    asRoot = routeCaller(fx, flavour, fill, (await rootTicket(fx)).headers);
  });
  afterAll(() => fx.stop());

  it('each route answers as PVE types it', async () => {
    const vm = { vmid: VM };
    // The state the reads need: a running VM with a snapshot holding RAM, a cloud-init drive, in a pool.
    await task(
      'POST /nodes/{node}/qemu',
      {},
      {
        vmid: VM,
        name: 'typed',
        memory: '1024',
        cores: '2',
        cpulimit: '1.5',
        onboot: '1',
        scsi0: 'local-lvm:1',
        ide2: 'local-lvm:cloudinit',
        net0: 'virtio,bridge=vmbr0',
        ciuser: 'ops',
        ipconfig0: 'ip=192.0.2.60/24',
        agent: '1',
        pool: SAMPLE_POOL,
      },
    );
    await task('POST /nodes/{node}/qemu/{vmid}/status/start', vm);
    await task('POST /nodes/{node}/qemu/{vmid}/snapshot', vm, {
      snapname: 'snap1',
      vmstate: '1',
      description: 'typed',
    });
    // Changes the running VM cannot take: a pending value and a deletion mark for GET …/pending.
    // (vmgenid: only root@pam may change it, check_vm_modify_config_perm.)
    await api.call('PUT /nodes/{node}/qemu/{vmid}/config', vm, { cores: '4' });
    await asRoot.call('PUT /nodes/{node}/qemu/{vmid}/config', vm, { delete: 'vmgenid' });
    await task('POST /nodes/{node}/qemu', {}, { vmid: TEMPLATE, name: 'golden', scsi0: 'local:1,format=raw' });
    await task('POST /nodes/{node}/qemu/{vmid}/template', { vmid: TEMPLATE });

    // Reads.
    for (const route of [
      'GET /version',
      'GET /cluster/resources',
      'GET /cluster/nextid',
      'GET /cluster/status',
      'GET /storage',
      'GET /pools',
      'GET /pools/{poolid}',
      'GET /nodes',
      'GET /nodes/{node}/status',
      'GET /nodes/{node}/network',
      'GET /nodes/{node}/qemu',
      'GET /nodes/{node}/qemu/{vmid}',
      'GET /nodes/{node}/qemu/{vmid}/config',
      'GET /nodes/{node}/qemu/{vmid}/pending',
      'GET /nodes/{node}/qemu/{vmid}/snapshot',
      'GET /nodes/{node}/qemu/{vmid}/status',
      'GET /nodes/{node}/qemu/{vmid}/status/current',
      'GET /nodes/{node}/qemu/{vmid}/migrate',
      'GET /nodes/{node}/qemu/{vmid}/cloudinit',
      'GET /nodes/{node}/tasks',
      'GET /nodes/{node}/storage',
      'GET /nodes/{node}/storage/{storage}/status',
      'GET /nodes/{node}/storage/{storage}/content',
      'GET /nodes/{node}/lxc',
      'GET /access/acl',
      'GET /cluster/ha',
      'GET /cluster/ha/resources',
      'GET /cluster/ha/status/current',
      'GET /cluster/sdn/zones',
      'GET /cluster/sdn/vnets',
      `GET ${AGENT_BASE}`,
    ]) {
      await api.call(route);
    }
    const [upid] = (await api.call('GET /nodes/{node}/tasks', {}, { limit: '1' })) as Array<{ upid: string }>;
    await api.call('GET /nodes/{node}/tasks/{upid}/status', { upid: upid!.upid });
    await api.call('DELETE /nodes/{node}/tasks/{upid}', { upid: upid!.upid }); // an ended task: left alone, null
    await api.call('GET /nodes/{node}/tasks/{upid}/log', { upid: upid!.upid });
    await api.call('GET /pools', {}, { poolid: SAMPLE_POOL });
    await api.call('GET /nodes/{node}/qemu/{vmid}/config', {}, { snapshot: 'snap1' });
    await api.call('GET /nodes/{node}/qemu/{vmid}/snapshot/{snapname}', { snapname: 'snap1' });
    await api.call('GET /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/config', { snapname: 'snap1' });
    await api.call('GET /nodes/{node}/qemu/{vmid}/feature', {}, { feature: 'snapshot' });
    await api.call('GET /nodes/{node}/qemu/{vmid}/cloudinit/dump', {}, { type: 'user' });
    await api.call('GET /nodes/{node}/qemu/{vmid}/rrd', {}, { ds: 'cpu', timeframe: 'hour' });
    await api.call('GET /nodes/{node}/qemu/{vmid}/rrddata', {}, { timeframe: 'hour' });

    // Writes on the running VM that keep it.
    await api.call('PUT /nodes/{node}/qemu/{vmid}/cloudinit', vm);
    await api.call('POST /nodes/{node}/qemu/{vmid}/monitor', vm, { command: 'info status' });
    await api.call('PUT /nodes/{node}/qemu/{vmid}/sendkey', vm, { key: 'ret' });
    await api.call(
      'PUT /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/config',
      { snapname: 'snap1' },
      { description: 'retyped' },
    );

    // A scratch VM through its whole lifecycle.
    const scratch = { vmid: SCRATCH };
    await task('POST /nodes/{node}/qemu', {}, { vmid: SCRATCH, scsi0: 'local-lvm:1' });
    fx.sim.cluster.vms.get(Number(SCRATCH))!.guestAcpi = true; // it reboots and shuts down: a guest with an OS
    await task('POST /nodes/{node}/qemu/{vmid}/config', scratch, { scsi1: 'local-lvm:1' });
    await api.call('PUT /nodes/{node}/qemu/{vmid}/config', scratch, { memory: '768' });
    await api.call('PUT /nodes/{node}/qemu/{vmid}/unlink', scratch, { idlist: 'scsi1', force: '1' });
    await task('PUT /nodes/{node}/qemu/{vmid}/resize', scratch, { disk: 'scsi0', size: '+1G' });
    await task('POST /nodes/{node}/qemu/{vmid}/move_disk', scratch, {
      disk: 'scsi0',
      storage: 'local',
      format: 'qcow2',
      delete: '1',
    });
    await task('POST /nodes/{node}/qemu/{vmid}/snapshot', scratch, { snapname: 'cold' });
    await task('POST /nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback', { ...scratch, snapname: 'cold' });
    await task('DELETE /nodes/{node}/qemu/{vmid}/snapshot/{snapname}', { ...scratch, snapname: 'cold' });
    for (const cmd of ['start', 'reset', 'suspend', 'resume', 'reboot', 'shutdown'])
      await task(`POST /nodes/{node}/qemu/{vmid}/status/${cmd}`, scratch);
    await task('POST /nodes/{node}/qemu/{vmid}/status/start', scratch);
    await task('POST /nodes/{node}/qemu/{vmid}/status/stop', scratch);
    await task('POST /nodes/{node}/qemu/{vmid}/clone', { vmid: TEMPLATE }, { newid: '3011', name: 'linked' });
    await task(
      'POST /nodes/{node}/qemu/{vmid}/clone',
      { vmid: TEMPLATE },
      { newid: '3012', full: '1', storage: 'local-lvm' },
    );
    await task('POST /nodes/{node}/qemu/{vmid}/migrate', { vmid: '3012' }, { target: 'pve2' }); // a linked clone cannot move
    await task('DELETE /nodes/{node}/qemu/{vmid}', { node: 'pve2', vmid: '3012' });
    await task('DELETE /nodes/{node}/qemu/{vmid}', { vmid: '3011' });
    await task('DELETE /nodes/{node}/qemu/{vmid}', scratch, { purge: '1' });

    // The VM's firewall.
    const fw = (p: string) => `/nodes/{node}/qemu/{vmid}/firewall${p}`;
    await api.call(`GET ${fw('')}`);
    await api.call(`PUT ${fw('/options')}`, {}, { enable: '1', policy_in: 'DROP' });
    await api.call(`GET ${fw('/options')}`);
    await api.call(`POST ${fw('/aliases')}`, {}, { name: 'mgmt', cidr: '192.0.2.0/24' });
    await api.call(`GET ${fw('/aliases')}`);
    await api.call(`GET ${fw('/aliases/{name}')}`, { name: 'mgmt' });
    await api.call(`PUT ${fw('/aliases/{name}')}`, { name: 'mgmt' }, { cidr: '192.0.2.0/25', comment: 'x' });
    await api.call(`POST ${fw('/ipset')}`, {}, { name: 'web' });
    await api.call(`POST ${fw('/ipset/{name}')}`, { name: 'web' }, { cidr: '198.51.100.10', nomatch: '1' });
    await api.call(`GET ${fw('/ipset')}`);
    await api.call(`GET ${fw('/ipset/{name}')}`, { name: 'web' });
    await api.call(`GET ${fw('/ipset/{name}/{cidr}')}`, { name: 'web', cidr: '198.51.100.10' });
    await api.call(`PUT ${fw('/ipset/{name}/{cidr}')}`, { name: 'web', cidr: '198.51.100.10' }, { comment: 'x' });
    await api.call(
      `POST ${fw('/rules')}`,
      {},
      { type: 'in', action: 'ACCEPT', source: '+web', dest: '192.0.2.1', proto: 'tcp', dport: '443', enable: '1' },
    );
    await api.call(`GET ${fw('/rules')}`);
    await api.call(`GET ${fw('/rules/{pos}')}`, { pos: '0' });
    await api.call(`PUT ${fw('/rules/{pos}')}`, { pos: '0' }, { comment: 'https' });
    await api.call(`GET ${fw('/refs')}`);
    await api.call(`GET ${fw('/log')}`);
    await api.call(`DELETE ${fw('/rules/{pos}')}`, { pos: '0' });
    await api.call(`DELETE ${fw('/ipset/{name}/{cidr}')}`, { name: 'web', cidr: '198.51.100.10' });
    await api.call(`DELETE ${fw('/ipset/{name}')}`, { name: 'web' });
    await api.call(`DELETE ${fw('/aliases/{name}')}`, { name: 'mgmt' });

    // Pools, ACLs, a ticket.
    await api.call('POST /pools', {}, { poolid: 'typedpool', comment: 'x' });
    await api.call('PUT /pools', {}, { poolid: 'typedpool', storage: 'local' });
    await api.call('PUT /pools/{poolid}', { poolid: 'typedpool' }, { storage: 'local', delete: '1' });
    await api.call('DELETE /pools/{poolid}', { poolid: 'typedpool' });
    await api.call('POST /pools', {}, { poolid: 'typedpool2' });
    await api.call('DELETE /pools', {}, { poolid: 'typedpool2' });
    await api.call('PUT /access/acl', {}, { path: `/vms/${VM}`, roles: 'PVEVMUser', groups: 'admins' });
    const ticket = await fx.raw('POST', '/api2/json/access/ticket', {
      form: { username: 'root@pam', password: fx.credentials.rootPassword },
      headers: { authorization: '' },
    });
    expect(ticket.status).toBe(200);
    expect(answerProblems(flavour, 'POST /access/ticket', ticket.body.data)).toEqual([]); // a login sends no token

    // SDN: a zone and a vnet, applied; PVE 9's lock and rollback.
    await api.call('POST /cluster/sdn/zones', {}, { zone: 'zt', type: 'simple' });
    await api.call('GET /cluster/sdn/zones/{zone}', { zone: 'zt' });
    await api.call('PUT /cluster/sdn/zones/{zone}', { zone: 'zt' }, { mtu: '1400' });
    await api.call('POST /cluster/sdn/vnets', {}, { vnet: 'vt', zone: 'zt' });
    await api.call('GET /cluster/sdn/vnets/{vnet}', { vnet: 'vt' });
    await api.call('PUT /cluster/sdn/vnets/{vnet}', { vnet: 'vt' }, { alias: 'typed' });
    await api.call('PUT /cluster/sdn');
    await fx.sim.cluster.tasks.idle();
    await api.call('DELETE /cluster/sdn/vnets/{vnet}', { vnet: 'vt' });
    await api.call('DELETE /cluster/sdn/zones/{zone}', { zone: 'zt' });
    if (flavour === '9.1') {
      const token = (await api.call('POST /cluster/sdn/lock', {}, { 'allow-pending': '1' })) as string;
      await api.call('POST /cluster/sdn/rollback', {}, { 'lock-token': token, 'release-lock': '1' });
      await api.call('POST /cluster/sdn/lock', {}, { 'allow-pending': '1' });
      await api.call('DELETE /cluster/sdn/lock', {}, { force: '1' });
    }

    // HA: a resource, rules (9.1) before any group, then a group.
    await task('POST /nodes/{node}/qemu', {}, { vmid: '3003' });
    await api.call('POST /cluster/ha/resources', {}, { sid: 'vm:3003' });
    await api.call('GET /cluster/ha/resources/{sid}', { sid: 'vm:3003' });
    await api.call('PUT /cluster/ha/resources/{sid}', { sid: 'vm:3003' }, { max_restart: '2' });
    if (flavour === '9.1') {
      await api.call(
        'POST /cluster/ha/rules',
        {},
        { rule: 'typed', type: 'node-affinity', nodes: 'pve1', resources: 'vm:3003' },
      );
      await api.call('GET /cluster/ha/rules');
      await api.call('GET /cluster/ha/rules/{rule}', { rule: 'typed' });
      await api.call('PUT /cluster/ha/rules/{rule}', { rule: 'typed' }, { type: 'node-affinity', strict: '1' });
      await api.call('DELETE /cluster/ha/rules/{rule}', { rule: 'typed' });
    }
    await api.call('DELETE /cluster/ha/resources/{sid}', { sid: 'vm:3003' });
    await api.call('POST /cluster/ha/groups', {}, { group: 'typed', nodes: 'pve1' });
    await api.call('GET /cluster/ha/groups');
    await api.call('GET /cluster/ha/groups/{group}', { group: 'typed' });
    await api.call('PUT /cluster/ha/groups/{group}', { group: 'typed' }, { nodes: 'pve1,pve2' });
    await api.call('DELETE /cluster/ha/groups/{group}', { group: 'typed' });

    // Consoles and the remote-migration routes (routes/console.ts, tunnel.ts, remote-migrate.ts).
    const vnc = await api.call('POST /nodes/{node}/qemu/{vmid}/vncproxy', vm, { websocket: '1' });
    await api.call('GET /nodes/{node}/qemu/{vmid}/vncwebsocket', vm, { port: String(vnc.port), vncticket: vnc.ticket });
    await api.call('POST /nodes/{node}/qemu/{vmid}/termproxy', vm);
    await task('POST /nodes/{node}/qemu', {}, { vmid: '3004', vga: 'qxl' });
    await task('POST /nodes/{node}/qemu/{vmid}/status/start', { vmid: '3004' });
    await api.call('POST /nodes/{node}/qemu/{vmid}/spiceproxy', { vmid: '3004' });
    const tunnel = await api.call(
      'POST /nodes/{node}/qemu/{vmid}/mtunnel',
      { vmid: '3020' },
      { storages: 'local-lvm' },
    );
    await api.call(
      'GET /nodes/{node}/qemu/{vmid}/mtunnelwebsocket',
      { vmid: '3020' },
      { socket: tunnel.socket, ticket: tunnel.ticket },
    );
    await fx.sim.cluster.tasks.stop(tunnel.upid);
    const fingerprint = await new Promise<string>((resolve, reject) => {
      const probe = tlsConnect({ host: fx.sim.host, port: fx.sim.port, ca: readFileSync(fx.sim.caFile) }, () => {
        resolve(probe.getPeerCertificate().fingerprint256);
        probe.end();
      });
      probe.on('error', reject);
    });
    const endpoint = `apitoken=PVEAPIToken=${fx.credentials.tokenId}=${fx.credentials.tokenSecret},host=127.0.0.1,port=${fx.sim.port},fingerprint=${fingerprint}`;
    // The task then fails (moving a VM through the tunnel is not simulated); the answer is its UPID.
    const migration = (await api.call(
      'POST /nodes/{node}/qemu/{vmid}/remote_migrate',
      { vmid: TEMPLATE },
      { 'target-endpoint': endpoint, 'target-storage': 'local-lvm', 'target-bridge': 'vmbr0', 'target-vmid': '3021' },
    )) as string;
    expect(migration).toMatch(/^UPID:/);
    await fx.sim.cluster.tasks.get(migration)!.done; // it stops the tunnel task it opened here, while the API still answers
    if (flavour === '9.1') await api.call('POST /nodes/{node}/qemu/{vmid}/dbus-vmstate', vm, { action: 'start' });

    // The reads a client makes at start-up and after each write, with the writes their objects need.
    for (const route of await sweepStartupReads(fx, flavour)) api.covered.add(route);

    api.covered.add('POST /access/ticket');
    const uncovered = allRoutes(flavour).filter(
      (r) => !api.covered.has(r) && !isAgentRoute(r) && r !== `GET ${AGENT_BASE}`,
    );
    expect(uncovered).toEqual([]);
  });

  it('every GET of the official schema a client reads at start-up is among the routes called above', () => {
    // /access, /cluster (resources, status, options, nextid, tasks, sdn, ha), /nodes and a node's index,
    // status, version, tasks, network, capabilities, storage (content and all) and qemu, /pools, /storage, /version.
    const startup =
      /^\/(access|cluster\/(resources|status|options|nextid|tasks|sdn|ha)|nodes$|nodes\/\{node\}$|nodes\/\{node\}\/(status|version|tasks|network|capabilities|storage|qemu)|pools|storage|version)(\/|$)/;
    const gets = [...allRoutes(flavour), ...loadSubset(flavour).unsimulated].filter(
      (r) => r.startsWith('GET ') && startup.test(r.slice(4)),
    );
    expect(gets.length).toBeGreaterThan(flavour === '8.4' ? 110 : 120);
    expect(gets.filter((r) => !allRoutes(flavour).includes(r))).toEqual([]);
  });

  it('every rule and deviation names a route the simulator serves, with a source', () => {
    const routes = new Set(allRoutes(flavour));
    const inSchema = new Set([...routes, ...loadSubset(flavour).unsimulated]);
    for (const rule of [...PERL_TYPES, ...SCHEMA_DEVIATIONS]) {
      if (!inSchema.has(rule.route)) continue; // a route of the other version only (held to there)
      expect([rule.route, routes.has(rule.route)]).toEqual([rule.route, true]);
      expect(('source' in rule ? rule.source : rule.why).length).toBeGreaterThan(10);
    }
  });
});
