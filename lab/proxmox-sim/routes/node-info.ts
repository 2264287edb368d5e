import { STATUS_CODES } from 'node:http';
import { Agent, request } from 'undici';
import { fail, paramError } from '../api-error';
import { VERSIONS, type Cluster } from '../cluster';
import { cpuModels, CPU_FLAGS, machineTypes } from '../node-capabilities';
import type { RouteTable } from './types';

/**
 * A node's own reads (pve-manager's API2/Nodes.pm, Network.pm, Capabilities.pm, Tasks.pm; qemu-server's
 * API2/Qemu/CPU.pm, Machine.pm, CPUFlags.pm, NodeCapabilities/Qemu/Migration.pm): the index, the
 * version, the network interfaces as pve-common's read_etc_network_interfaces parses a fresh install's
 * /etc/network/interfaces (one NIC per bridge, the first bridge holding the node's address), a task's
 * index, and the QEMU capabilities.
 */
const NODE_INDEX: Record<Cluster['flavour'], string[]> = {
  '8.4': [
    ...['aplinfo', 'apt', 'capabilities', 'ceph', 'certificates', 'config', 'disks', 'dns', 'firewall', 'hardware'],
    ...['hosts', 'journal', 'lxc', 'migrateall', 'netstat', 'network', 'qemu', 'query-url-metadata', 'replication'],
    ...['report', 'rrd', 'rrddata', 'scan', 'services', 'spiceshell', 'startall', 'status', 'stopall', 'storage'],
    ...['subscription', 'suspendall', 'syslog', 'tasks', 'termproxy', 'time', 'version', 'vncshell', 'vzdump'],
    ...['wakeonlan', 'sdn'],
  ],
  '9.1': [
    ...['aplinfo', 'apt', 'capabilities', 'ceph', 'certificates', 'config', 'disks', 'dns', 'firewall', 'hardware'],
    ...['hosts', 'journal', 'lxc', 'migrateall', 'netstat', 'network', 'qemu', 'query-oci-repo-tags'],
    ...['query-url-metadata', 'replication', 'report', 'rrd', 'rrddata', 'scan', 'sdn', 'services', 'spiceshell'],
    ...['startall', 'status', 'stopall', 'storage', 'subscription', 'suspendall', 'syslog', 'tasks', 'termproxy'],
    ...['time', 'version', 'vncshell', 'vzdump', 'wakeonlan'],
  ],
};

/** The node's interfaces as read_etc_network_interfaces gives them (the index adds `iface`, leaves out lo). */
export function nodeInterfaces(cluster: Cluster, node: string): Record<string, Record<string, unknown>> {
  const ifaces: Record<string, Record<string, unknown>> = {};
  let priority = 2; // lo is 1
  cluster.bridges.forEach((bridge, i) => {
    const nic = `eno${i + 1}`;
    ifaces[nic] = {
      type: 'eth',
      method: 'manual',
      method6: 'manual',
      families: ['inet'],
      priority: priority++,
      exists: 1,
      active: 1,
    };
    const addressed = i === 0;
    const ip = cluster.hardware(node).ip;
    ifaces[bridge] = {
      type: 'bridge',
      method: addressed ? 'static' : 'manual',
      method6: 'manual',
      families: ['inet'],
      priority: priority++,
      autostart: 1,
      exists: 1,
      active: 1,
      bridge_ports: nic,
      bridge_stp: 'off',
      bridge_fd: '0',
      ...(addressed ? { address: ip, netmask: '24', cidr: `${ip}/24`, gateway: ip.replace(/\.\d+$/, '.1') } : {}),
    };
  });
  return ifaces;
}

export const nodeInfoRoutes: RouteTable = {
  'GET /nodes/{node}': ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    return NODE_INDEX[cluster.flavour].map((name) => ({ name }));
  },

  'GET /nodes/{node}/version': ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    const { version, release, repoid } = VERSIONS[cluster.flavour];
    return { version, release, repoid };
  },

  /** Network.pm index: no lo; vnets only when the type filter asks for them (get_local_vnets). */
  'GET /nodes/{node}/network': ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    const ifaces = nodeInterfaces(cluster, params.node!);
    const filter = params.type;
    const rows: Array<Record<string, unknown>> = Object.keys(ifaces)
      .sort()
      .map((iface): Record<string, unknown> => ({ ...ifaces[iface], iface }))
      .filter(
        (r) =>
          !filter ||
          filter === 'include_sdn' ||
          r.type === filter ||
          (/^any(_local)?_bridge$/.test(filter) && (r.type === 'bridge' || r.type === 'OVSBridge')),
      );
    if (filter && /^(any_bridge|include_sdn|vnet)$/.test(filter))
      for (const [vnet, v] of Object.entries(cluster.sdnRunning.vnets))
        rows.push({ iface: vnet, type: 'vnet', active: 1, ...(v.alias ? { comments: v.alias } : {}) });
    return rows;
  },

  'GET /nodes/{node}/network/{iface}': ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    const iface = nodeInterfaces(cluster, params.node!)[params.iface!];
    if (!iface) throw paramError({ iface: 'interface does not exist' });
    return iface;
  },

  'GET /nodes/{node}/tasks/{upid}': () => [{ name: 'log' }, { name: 'status' }],

  'GET /nodes/{node}/capabilities': ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    return [{ name: 'qemu' }];
  },

  'GET /nodes/{node}/capabilities/qemu': ({ cluster }) =>
    (cluster.flavour === '8.4' ? ['cpu', 'machines'] : ['cpu', 'cpu-flags', 'machines', 'migration']).map((name) => ({
      name,
    })),

  'GET /nodes/{node}/capabilities/qemu/cpu': () => cpuModels(),

  'GET /nodes/{node}/capabilities/qemu/cpu-flags': () => CPU_FLAGS.map((f) => ({ ...f })),

  'GET /nodes/{node}/capabilities/qemu/machines': ({ cluster }) => machineTypes(cluster.flavour),

  /**
   * Nodes.pm query_url_metadata: a HEAD request to the URL (certificates verified unless told not to);
   * the file name from Content-Disposition or the URL's last segment, the size, the MIME type.
   */
  'GET /nodes/{node}/query-url-metadata': async ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    const url = params.url!;
    const dispatcher =
      params['verify-certificates'] === '0' ? new Agent({ connect: { rejectUnauthorized: false } }) : undefined;
    let res;
    try {
      res = await request(url, {
        method: 'HEAD',
        headers: { 'user-agent': 'Proxmox VE' },
        ...(dispatcher ? { dispatcher } : {}),
      });
      await res.body.dump();
    } catch (err) {
      throw fail(`invalid server response: '500 ${err instanceof Error ? err.message : String(err)}'`);
    } finally {
      await dispatcher?.close();
    }
    if (res.statusCode !== 200)
      throw fail(`invalid server response: '${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}'`);
    const header = (name: string) => {
      const v = res.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const disposition = header('content-disposition');
    const filename =
      (disposition && (/filename="([^"]*)"/.exec(disposition)?.[1] ?? /filename=([^;]*)/.exec(disposition)?.[1])) ??
      /^[^?]+\/([^?/]*)(?:\?.*)?$/.exec(url)?.[1];
    const size = Number(header('content-length') ?? 0);
    const type = header('content-type')?.replace(/;.*$/, '');
    return { ...(filename ? { filename } : {}), ...(size ? { size } : {}), ...(type ? { mimetype: type } : {}) };
  },

  /** Migration.pm: a JSON true, not PVE's usual 1, as `-f … ? JSON::true : JSON::false` writes it. */
  'GET /nodes/{node}/capabilities/qemu/migration': () => ({ 'has-dbus-vmstate': true }),
};
