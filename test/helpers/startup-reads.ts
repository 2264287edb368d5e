import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Flavour } from '../../lab/proxmox-sim/schema/subset';
import { answerProblems, routeCaller, type RouteCaller } from './answer-types';
import { makeOva, rootTicket, serveFiles, upload } from './pve-fixtures';
import type { SimFixture } from './proxmox';

/**
 * Calls, successfully and with PVE's answer types checked, every route of the start-up reads (access,
 * cluster options, tasks, HA status, SDN objects, node index, capabilities, storage content) and the
 * writes that make their objects exist; as root@pam (the vnet firewall index is root's only) on a
 * simulator whose sample cluster is untouched by anything else here. File-restore needs a Proxmox
 * Backup Server storage: its two routes must answer PVE's error for any other. Returns the routes called.
 */
const NODE = 'pve1';

export async function sweepStartupReads(fx: SimFixture, flavour: Flavour): Promise<Set<string>> {
  const { headers } = await rootTicket(fx);
  const api = routeCaller(fx, flavour, { node: NODE }, headers);
  await accessReads(api);
  await clusterReads(api, fx);
  await sdnReads(api, flavour);
  await nodeReads(api, fx, flavour);
  await storageReads(api, fx, flavour);
  return api.covered;
}

async function accessReads(api: RouteCaller): Promise<void> {
  const user = { userid: 'typed@pve' };
  await api.call('POST /access/groups', {}, { groupid: 'typed', comment: 'typed group' });
  await api.call(
    'POST /access/users',
    {},
    { ...user, password: 'typed-password-1', groups: 'typed', email: 'typed@example.com' },
  );
  await api.call('PUT /access/users/{userid}', user, { firstname: 'Ty', lastname: 'Ped', comment: 'types' });
  await api.call('POST /access/roles', {}, { roleid: 'TypedRole', privs: 'VM.Audit,Sys.Audit' });
  await api.call('PUT /access/roles/{roleid}', { roleid: 'TypedRole' }, { privs: 'Datastore.Audit', append: '1' });
  await api.call(
    'POST /access/users/{userid}/token/{tokenid}',
    { ...user, tokenid: 'tok' },
    { comment: 'typed', privsep: '1' },
  );
  await api.call('PUT /access/users/{userid}/token/{tokenid}', { ...user, tokenid: 'tok' }, { comment: 'retyped' });
  await api.call('PUT /access/acl', {}, { path: '/vms', roles: 'TypedRole', tokens: 'typed@pve!tok' });
  await api.call('POST /access/tfa/{userid}', user, { type: 'recovery' });
  await api.call('PUT /access/tfa/{userid}/{id}', { ...user, id: 'recovery' }, { description: 'keys' });
  for (const route of [
    'GET /access',
    'GET /access/users',
    'GET /access/groups',
    'GET /access/roles',
    'GET /access/domains',
    'GET /access/openid',
    'GET /access/tfa',
    'GET /access/ticket',
  ])
    await api.call(route);
  await api.call('GET /access/users', {}, { full: '1' });
  await api.call('GET /access/users/{userid}', user);
  await api.call('GET /access/users/{userid}/tfa', user, { multiple: '1' });
  await api.call('GET /access/users/{userid}/token', user);
  await api.call('GET /access/users/{userid}/token/{tokenid}', { ...user, tokenid: 'tok' });
  await api.call('GET /access/groups/{groupid}', { groupid: 'typed' });
  await api.call('GET /access/roles/{roleid}', { roleid: 'TypedRole' });
  await api.call('GET /access/domains/{realm}', { realm: 'pam' });
  await api.call('GET /access/tfa/{userid}', user);
  await api.call('GET /access/tfa/{userid}/{id}', { ...user, id: 'recovery' });
  await api.call('GET /access/permissions');
  await api.call('GET /access/permissions', {}, { userid: 'typed@pve!tok', path: '/vms/100' });
  await api.call('DELETE /access/tfa/{userid}/{id}', { ...user, id: 'recovery' });
  await api.call('DELETE /access/users/{userid}/token/{tokenid}', { ...user, tokenid: 'tok' });
  await api.call('DELETE /access/roles/{roleid}', { roleid: 'TypedRole' });
  await api.call('DELETE /access/users/{userid}', user);
  await api.call('PUT /access/groups/{groupid}', { groupid: 'typed' }, { comment: 'gone soon' });
  await api.call('DELETE /access/groups/{groupid}', { groupid: 'typed' });
}

async function clusterReads(api: RouteCaller, fx: SimFixture): Promise<void> {
  for (const route of ['GET /cluster/options', 'GET /cluster/ha/status', 'GET /cluster/ha/status/manager_status'])
    await api.call(route);
  const upid = (await api.call('POST /nodes/{node}/qemu', {}, { vmid: '3901', name: 'typed-tasks' })) as string;
  await fx.sim.cluster.tasks.get(upid)!.done;
  await api.call('POST /cluster/ha/resources', {}, { sid: 'vm:3901', state: 'stopped' });
  await api.call('GET /cluster/ha/status/manager_status');
  await api.call('DELETE /cluster/ha/resources/{sid}', { sid: 'vm:3901' });
  await api.call('GET /cluster/tasks');
  await api.call('GET /nodes/{node}/tasks/{upid}', { upid });
}

async function sdnReads(api: RouteCaller, flavour: Flavour): Promise<void> {
  const pdns = await serveFiles({ '/api/v1/servers/localhost': JSON.stringify({ id: 'localhost', type: 'Server' }) });
  try {
    await api.call('POST /cluster/sdn/zones', {}, { zone: 'sweep', type: 'simple' });
    await api.call('POST /cluster/sdn/vnets', {}, { vnet: 'sweepv', zone: 'sweep' });
    const vnet = { vnet: 'sweepv' };
    const subnet = { ...vnet, subnet: 'sweep-10.9.0.0-24' };
    await api.call('POST /cluster/sdn/vnets/{vnet}/subnets', vnet, {
      subnet: '10.9.0.0/24',
      type: 'subnet',
      gateway: '10.9.0.1',
    });
    await api.call('PUT /cluster/sdn/vnets/{vnet}/subnets/{subnet}', subnet, { snat: '1' });
    await api.call(
      'POST /cluster/sdn/controllers',
      {},
      { controller: 'evpn1', type: 'evpn', asn: '65000', peers: '192.0.2.11' },
    );
    await api.call('PUT /cluster/sdn/controllers/{controller}', { controller: 'evpn1' }, { asn: '65001' });
    await api.call(
      'POST /cluster/sdn/ipams',
      {},
      { ipam: 'nb', type: 'netbox', url: 'https://netbox.example/api', token: 't0k' },
    );
    await api.call('PUT /cluster/sdn/ipams/{ipam}', { ipam: 'nb' }, { url: 'https://netbox2.example/api' });
    await api.call(
      'POST /cluster/sdn/dns',
      {},
      { dns: 'pdns', type: 'powerdns', url: `${pdns.url}/api/v1/servers/localhost`, key: 'k' },
    );
    await api.call('PUT /cluster/sdn/dns/{dns}', { dns: 'pdns' }, { ttl: '300' });
    const fw = '/cluster/sdn/vnets/{vnet}/firewall';
    await api.call(`PUT ${fw}/options`, vnet, { enable: '1', policy_forward: 'DROP' });
    await api.call(`POST ${fw}/rules`, vnet, {
      type: 'forward',
      action: 'ACCEPT',
      source: '10.9.0.0/24',
      proto: 'tcp',
      dport: '22',
      enable: '1',
    });
    await api.call(`PUT ${fw}/rules/{pos}`, { ...vnet, pos: '0' }, { comment: 'ssh' });
    for (const route of [`GET ${fw}`, `GET ${fw}/options`, `GET ${fw}/rules`]) await api.call(route, vnet);
    await api.call(`GET ${fw}/rules/{pos}`, { ...vnet, pos: '0' });
    await api.call('GET /cluster/sdn/vnets/{vnet}/subnets', vnet);
    await api.call('GET /cluster/sdn/vnets/{vnet}/subnets/{subnet}', subnet);
    for (const route of [
      'GET /cluster/sdn',
      'GET /cluster/sdn/controllers',
      'GET /cluster/sdn/ipams',
      'GET /cluster/sdn/dns',
    ])
      await api.call(route);
    await api.call('GET /cluster/sdn/controllers', {}, { pending: '1' });
    await api.call('GET /cluster/sdn/controllers/{controller}', { controller: 'evpn1' });
    await api.call('GET /cluster/sdn/ipams/{ipam}', { ipam: 'pve' });
    await api.call('GET /cluster/sdn/ipams/{ipam}/status', { ipam: 'pve' });
    await api.call('GET /cluster/sdn/dns/{dns}', { dns: 'pdns' });
    if (flavour !== '8.4') await fabricReads(api);
    await api.call(`DELETE ${fw}/rules/{pos}`, { ...vnet, pos: '0' });
    await api.call('DELETE /cluster/sdn/dns/{dns}', { dns: 'pdns' });
    await api.call('DELETE /cluster/sdn/ipams/{ipam}', { ipam: 'nb' });
    await api.call('DELETE /cluster/sdn/controllers/{controller}', { controller: 'evpn1' });
    await api.call('DELETE /cluster/sdn/vnets/{vnet}/subnets/{subnet}', subnet);
  } finally {
    await pdns.close();
  }
}

async function fabricReads(api: RouteCaller): Promise<void> {
  const fabric = { fabric_id: 'fab1' };
  await api.call(
    'POST /cluster/sdn/fabrics/fabric',
    {},
    { id: 'fab1', protocol: 'openfabric', ip_prefix: '10.20.0.0/16' },
  );
  await api.call(
    'PUT /cluster/sdn/fabrics/fabric/{id}',
    { id: 'fab1' },
    { protocol: 'openfabric', hello_interval: '3' },
  );
  await api.call('POST /cluster/sdn/fabrics/node/{fabric_id}', fabric, {
    node_id: NODE,
    protocol: 'openfabric',
    ip: '10.20.0.1',
    interfaces: 'name=eno2',
  });
  await api.call(
    'PUT /cluster/sdn/fabrics/node/{fabric_id}/{node_id}',
    { ...fabric, node_id: NODE },
    { protocol: 'openfabric', ip: '10.20.0.2' },
  );
  for (const route of [
    'GET /cluster/sdn/fabrics',
    'GET /cluster/sdn/fabrics/fabric',
    'GET /cluster/sdn/fabrics/node',
    'GET /cluster/sdn/fabrics/all',
  ])
    await api.call(route);
  await api.call('GET /cluster/sdn/fabrics/fabric/{id}', { id: 'fab1' });
  await api.call('GET /cluster/sdn/fabrics/node/{fabric_id}', fabric);
  await api.call('GET /cluster/sdn/fabrics/node/{fabric_id}/{node_id}', { ...fabric, node_id: NODE });
  await api.call('GET /cluster/sdn/dry-run', {}, { node: NODE });
  await api.call('DELETE /cluster/sdn/fabrics/node/{fabric_id}/{node_id}', { ...fabric, node_id: NODE });
  await api.call('DELETE /cluster/sdn/fabrics/fabric/{id}', { id: 'fab1' });
}

async function nodeReads(api: RouteCaller, fx: SimFixture, flavour: Flavour): Promise<void> {
  for (const route of [
    'GET /nodes/{node}',
    'GET /nodes/{node}/version',
    'GET /nodes/{node}/capabilities',
    'GET /nodes/{node}/capabilities/qemu',
    'GET /nodes/{node}/capabilities/qemu/cpu',
    'GET /nodes/{node}/capabilities/qemu/machines',
  ])
    await api.call(route);
  if (flavour !== '8.4') {
    await api.call('GET /nodes/{node}/capabilities/qemu/cpu-flags');
    await api.call('GET /nodes/{node}/capabilities/qemu/migration');
  }
  await api.call('GET /nodes/{node}/network/{iface}', { iface: fx.sim.cluster.bridges[0]! });
  await api.call('GET /nodes/{node}/network', {}, { type: 'any_bridge' });
}

async function storageReads(api: RouteCaller, fx: SimFixture, flavour: Flavour): Promise<void> {
  const local = { storage: 'local' };
  await api.call('GET /storage/{storage}', local);
  await api.call('GET /nodes/{node}/storage/{storage}', local);
  await api.call('GET /nodes/{node}/storage/{storage}/prunebackups', local, { 'prune-backups': 'keep-last=1' });
  await api.call('GET /nodes/{node}/storage/{storage}/rrd', local, { ds: 'used', timeframe: 'hour' });
  await api.call('GET /nodes/{node}/storage/{storage}/rrddata', local, { timeframe: 'day' });
  const image = (await api.call(
    'POST /nodes/{node}/storage/{storage}/content',
    { storage: 'local-lvm' },
    { vmid: '3901', filename: 'vm-3901-disk-7', size: '4M' },
  )) as string;
  await api.call('GET /nodes/{node}/storage/{storage}/content/{volume}', { storage: 'local-lvm', volume: image });
  await api.call(
    'DELETE /nodes/{node}/storage/{storage}/content/{volume}',
    { storage: 'local-lvm', volume: image },
    { delay: '5' },
  );

  // Content in: an uploaded OVA (its import metadata), a downloaded ISO.
  const ova = makeOva('sweep');
  const up = await upload(fx, NODE, 'local', { content: 'import', filename: 'sweep.ova', data: ova }, {});
  if (up.status !== 200) throw new Error(`upload: ${up.status} ${up.body.message}`);
  if (answerProblems(flavour, 'POST /nodes/{node}/storage/{storage}/upload', up.body.data).length)
    throw new Error('upload answer');
  await fx.sim.cluster.tasks.get(up.body.data as string)!.done;
  api.covered.add('POST /nodes/{node}/storage/{storage}/upload');
  await api.call('GET /nodes/{node}/storage/{storage}/import-metadata', local, { volume: 'local:import/sweep.ova' });
  const iso = Buffer.alloc(256 * 1024, 0x41);
  const web = await serveFiles({ '/sweep.iso': iso });
  try {
    const sha = createHash('sha256').update(iso).digest('hex');
    await api.call('GET /nodes/{node}/query-url-metadata', {}, { url: `${web.url}/sweep.iso` });
    const upid = (await api.call('POST /nodes/{node}/storage/{storage}/download-url', local, {
      url: `${web.url}/sweep.iso`,
      content: 'iso',
      filename: 'sweep.iso',
      'checksum-algorithm': 'sha256',
      checksum: sha,
    })) as string;
    await fx.sim.cluster.tasks.get(upid)!.done;
  } finally {
    await web.close();
  }
  await api.call('GET /nodes/{node}/storage/{storage}/content/{volume}', { ...local, volume: 'local:iso/sweep.iso' });

  // A backup archive (vzdump is not simulated: the file is put in the dump folder) takes notes and protection.
  const dump = path.join(fx.stateDir, 'proxmox', 'storage', 'local', NODE, 'dump');
  mkdirSync(dump, { recursive: true });
  const archive = 'vzdump-qemu-3901-2025_01_02-03_04_05.vma.zst';
  writeFileSync(path.join(dump, archive), Buffer.alloc(4096, 1));
  const backup = { ...local, volume: `local:backup/${archive}` };
  await api.call('PUT /nodes/{node}/storage/{storage}/content/{volume}', backup, { notes: 'typed', protected: '1' });
  await api.call('GET /nodes/{node}/storage/{storage}/content/{volume}', backup);
  await api.call('GET /nodes/{node}/storage/{storage}/content', local, { content: 'backup' });
  for (const route of [
    'GET /nodes/{node}/storage/{storage}/file-restore/list',
    'GET /nodes/{node}/storage/{storage}/file-restore/download',
  ]) {
    const p = route.split(' ')[1]!.replace('{node}', NODE).replace('{storage}', 'local');
    const res = await fx.raw('GET', `/api2/json${p}?volume=${encodeURIComponent(backup.volume)}&filepath=Lw==`, {
      headers: (await rootTicket(fx)).headers,
    });
    if (res.status !== 400 || res.body.errors?.storage !== 'Only PBS storages supported for file-restore.')
      throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
    api.covered.add(route);
  }
}
