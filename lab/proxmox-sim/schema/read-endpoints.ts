import type { HttpMethod } from './endpoints';

/**
 * The endpoints a client reads at start-up and after each write, beyond the VM lifecycle (part of
 * SIMULATED_ENDPOINTS): every GET under /access, /cluster (options, tasks, sdn, ha), /nodes/{node}
 * (index, version, network, tasks, capabilities, storage and its content), /storage; and the writes
 * that make their objects exist (users, groups, roles, tokens, TFA, SDN objects, storage content in
 * and out). A path or method the flavour's schema lacks is left out for that flavour (fabrics,
 * dry-run, cpu-flags and migration capabilities are PVE 9 only).
 */
type Endpoint = { path: string; methods: readonly HttpMethod[] };

const ACCESS: Endpoint[] = [
  { path: '/access', methods: ['GET'] },
  { path: '/access/users', methods: ['GET', 'POST'] },
  { path: '/access/users/{userid}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/access/users/{userid}/tfa', methods: ['GET'] },
  { path: '/access/users/{userid}/token', methods: ['GET'] },
  { path: '/access/users/{userid}/token/{tokenid}', methods: ['GET', 'POST', 'PUT', 'DELETE'] },
  { path: '/access/groups', methods: ['GET', 'POST'] },
  { path: '/access/groups/{groupid}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/access/roles', methods: ['GET', 'POST'] },
  { path: '/access/roles/{roleid}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/access/domains', methods: ['GET'] },
  { path: '/access/domains/{realm}', methods: ['GET'] },
  { path: '/access/openid', methods: ['GET'] },
  { path: '/access/tfa', methods: ['GET'] },
  { path: '/access/tfa/{userid}', methods: ['GET', 'POST'] },
  { path: '/access/tfa/{userid}/{id}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/access/permissions', methods: ['GET'] },
];

const CLUSTER: Endpoint[] = [
  { path: '/cluster/options', methods: ['GET'] },
  { path: '/cluster/tasks', methods: ['GET'] },
  { path: '/cluster/ha/status', methods: ['GET'] },
  { path: '/cluster/ha/status/manager_status', methods: ['GET'] },
  { path: '/cluster/sdn/vnets/{vnet}/firewall', methods: ['GET'] },
  { path: '/cluster/sdn/vnets/{vnet}/firewall/rules', methods: ['GET', 'POST'] },
  { path: '/cluster/sdn/vnets/{vnet}/firewall/rules/{pos}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/sdn/vnets/{vnet}/firewall/options', methods: ['GET', 'PUT'] },
  { path: '/cluster/sdn/vnets/{vnet}/subnets', methods: ['GET', 'POST'] },
  { path: '/cluster/sdn/vnets/{vnet}/subnets/{subnet}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/sdn/controllers', methods: ['GET', 'POST'] },
  { path: '/cluster/sdn/controllers/{controller}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/sdn/ipams', methods: ['GET', 'POST'] },
  { path: '/cluster/sdn/ipams/{ipam}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/sdn/ipams/{ipam}/status', methods: ['GET'] },
  { path: '/cluster/sdn/dns', methods: ['GET', 'POST'] },
  { path: '/cluster/sdn/dns/{dns}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/sdn/fabrics', methods: ['GET'] },
  { path: '/cluster/sdn/fabrics/fabric', methods: ['GET', 'POST'] },
  { path: '/cluster/sdn/fabrics/fabric/{id}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/sdn/fabrics/node', methods: ['GET'] },
  { path: '/cluster/sdn/fabrics/node/{fabric_id}', methods: ['GET', 'POST'] },
  { path: '/cluster/sdn/fabrics/node/{fabric_id}/{node_id}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/cluster/sdn/fabrics/all', methods: ['GET'] },
  { path: '/cluster/sdn/dry-run', methods: ['GET'] },
];

const NODES: Endpoint[] = [
  { path: '/nodes/{node}', methods: ['GET'] },
  { path: '/nodes/{node}/version', methods: ['GET'] },
  { path: '/nodes/{node}/network/{iface}', methods: ['GET'] },
  { path: '/nodes/{node}/capabilities', methods: ['GET'] },
  { path: '/nodes/{node}/capabilities/qemu', methods: ['GET'] },
  { path: '/nodes/{node}/capabilities/qemu/cpu', methods: ['GET'] },
  { path: '/nodes/{node}/capabilities/qemu/cpu-flags', methods: ['GET'] },
  { path: '/nodes/{node}/capabilities/qemu/machines', methods: ['GET'] },
  { path: '/nodes/{node}/capabilities/qemu/migration', methods: ['GET'] },
  // What download-url's clients (the GUI, Terraform's bpg/proxmox) ask about a URL first.
  { path: '/nodes/{node}/query-url-metadata', methods: ['GET'] },
];

const STORAGE: Endpoint[] = [
  { path: '/storage/{storage}', methods: ['GET'] },
  { path: '/nodes/{node}/storage/{storage}', methods: ['GET'] },
  { path: '/nodes/{node}/storage/{storage}/prunebackups', methods: ['GET'] },
  { path: '/nodes/{node}/storage/{storage}/content/{volume}', methods: ['GET', 'PUT', 'DELETE'] },
  { path: '/nodes/{node}/storage/{storage}/file-restore/list', methods: ['GET'] },
  { path: '/nodes/{node}/storage/{storage}/file-restore/download', methods: ['GET'] },
  { path: '/nodes/{node}/storage/{storage}/rrd', methods: ['GET'] },
  { path: '/nodes/{node}/storage/{storage}/rrddata', methods: ['GET'] },
  { path: '/nodes/{node}/storage/{storage}/import-metadata', methods: ['GET'] },
  { path: '/nodes/{node}/storage/{storage}/upload', methods: ['POST'] },
  { path: '/nodes/{node}/storage/{storage}/download-url', methods: ['POST'] },
];

export const READ_ENDPOINTS: readonly Endpoint[] = [...ACCESS, ...CLUSTER, ...NODES, ...STORAGE];
