import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fail, paramError } from '../api-error';
import type { Cluster } from '../cluster';
import { sdnObjects, sectionDigest, typedOptions, type SdnItem, type VnetFirewall } from '../sdn/objects';
import { listWithDigest, withDigest } from '../vm-firewall';
import type { RouteTable, SimRequest } from './types';

/**
 * A vnet's subnets and firewall (pve-network's API2/Network/SDN/Subnets.pm; pve-firewall's
 * API2/Firewall/Vnet.pm), the fabrics of PVE 9 (API2/Network/SDN/Fabrics*.pm: fabrics and their nodes)
 * and the dry run of an apply (SDN.pm dry-run: `diff -b -N -u` of the interfaces file the running
 * config has against the one the edited config would write; null where nothing differs).
 */
const CONTROL = ['lock-token', 'digest', 'delete', 'pending', 'running', 'vnet', 'subnet', 'type'];

function vnetOf(cluster: Cluster, vnet: string): Record<string, string> {
  const v = cluster.sdn.vnets[vnet] ?? cluster.sdnRunning.vnets[vnet];
  if (!v) throw fail(`sdn vnet '${vnet}' does not exist`);
  return v;
}

/** $api_sdn_subnets_config: the id's parts (zone, network, mask), the DHCP ranges parsed. */
function subnetView(items: Map<string, SdnItem>, id: string): Record<string, unknown> {
  const item = items.get(id);
  if (!item) throw fail(`sdn subnet '${id}' does not exist`);
  const [zone, network, mask] = id.split('-');
  const ranges = (Array.isArray(item['dhcp-range']) ? item['dhcp-range'] : []).map((r) =>
    Object.fromEntries(r.split(',').map((kv) => kv.split('=') as [string, string])),
  );
  return {
    ...item,
    subnet: id,
    digest: sectionDigest(items),
    'dhcp-range': ranges,
    cidr: `${network}/${mask}`,
    zone,
    network,
    mask,
  };
}

const inSubnet = (ip: string, cidr: string) => {
  const [net, bits] = cidr.split('/') as [string, string];
  const n = (a: string) => a.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(n(ip) / size) === Math.floor(n(net) / size);
};

function saveSubnet(req: SimRequest, creating: boolean): null {
  const { cluster, params } = req;
  const vnet = vnetOf(cluster, params.vnet!);
  const items = sdnObjects(cluster).subnets;
  const id = creating ? `${vnet.zone}-${params.subnet!.replace('/', '-')}` : params.subnet!;
  if (creating && items.has(id))
    throw fail(`create sdn subnet object failed: sdn subnet object ID '${id}' already defined`);
  if (!creating && !items.has(id)) throw fail(`sdn subnet '${id}' does not exist`);
  if (vnet.vlanaware === '1') throw paramError({ vnet: "you can't add a subnet on a vlanaware vnet" });
  const opts = typedOptions(cluster, `POST /cluster/sdn/vnets/{vnet}/subnets`, params, CONTROL);
  if (params['dhcp-range'] !== undefined) opts['dhcp-range'] = JSON.parse(params['dhcp-range']) as string[];
  const item: SdnItem = { ...(creating ? { type: 'subnet', vnet: params.vnet! } : items.get(id)), ...opts };
  for (const k of (params.delete ?? '').split(/[,;\s]+/).filter(Boolean)) delete item[k];
  const cidr = id.split('-').slice(1).join('/');
  const gateway = item.gateway === undefined ? undefined : String(item.gateway);
  if (gateway && isIP(gateway) === 4 && !cidr.endsWith('/32') && !inSubnet(gateway, cidr))
    throw paramError({ gateway: `${gateway} is not in subnet ${cidr}` });
  items.set(id, item);
  return null;
}

function firewallOfVnet(cluster: Cluster, vnet: string): VnetFirewall {
  vnetOf(cluster, vnet);
  const all = sdnObjects(cluster).firewalls;
  if (!all.has(vnet)) all.set(vnet, { options: {}, rules: [] });
  return all.get(vnet)!;
}

const RULE_KEYS = [
  'action',
  'comment',
  'dest',
  'dport',
  'enable',
  'icmp-type',
  'iface',
  'log',
  'macro',
  'proto',
  'source',
  'sport',
  'type',
];

function ruleFrom(
  params: Record<string, string>,
  base: Record<string, string | number> = {},
): Record<string, string | number> {
  const rule = { ...base };
  for (const key of RULE_KEYS) {
    const v = params[key];
    if (v === undefined) continue;
    if (v === '' || v === '-') delete rule[key];
    else rule[key] = key === 'enable' ? Number(v) : v;
  }
  if (rule.type !== 'forward' && rule.type !== 'group')
    throw paramError({ type: `invalid rule type '${rule.type}' for rule_env 'vnet'` });
  if (!['ACCEPT', 'DROP', 'REJECT'].includes(String(rule.action)))
    throw paramError({ action: `unknown action '${rule.action}'` });
  for (const side of ['source', 'dest']) {
    const v = rule[side];
    if (v !== undefined && isIP(String(v).split(/[,/-]/)[0]!) === 0)
      throw paramError({ [side]: `no such alias '${v}'` });
  }
  return rule;
}

function ruleAt(fw: VnetFirewall, pos: string): Record<string, string | number> {
  const rule = fw.rules[Number(pos)];
  if (!rule) throw fail(`no rule at position ${pos}`);
  return rule;
}

const FW = '/cluster/sdn/vnets/{vnet}/firewall';

/** The interfaces.d/sdn text a config writes: one bridge per vnet of a VLAN or simple zone. */
function sdnInterfaces(cfg: Cluster['sdn']): string {
  return Object.keys(cfg.vnets)
    .sort()
    .map((id) => {
      const v = cfg.vnets[id]!;
      const zone = cfg.zones[v.zone!];
      const port = zone?.type === 'vlan' ? `${zone.bridge}.${v.tag}` : 'none';
      return `auto ${id}\niface ${id}\n\tbridge_ports ${port}\n\tbridge_stp off\n\tbridge_fd 0\n${v.alias ? `\talias ${v.alias}\n` : ''}`;
    })
    .join('\n');
}

async function diff(before: string, after: string): Promise<string | null> {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-sdn-dry-run-'));
  try {
    const [a, b] = [path.join(dir, 'sdn'), path.join(dir, 'sdn.new')];
    if (before) writeFileSync(a, before);
    writeFileSync(b, after);
    const out = await promisify(execFile)('diff', ['-b', '-N', '-u', a, b]).catch((e: { stdout?: string }) => ({
      stdout: e.stdout ?? '',
    }));
    return out.stdout ? out.stdout : null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function fabricView(cluster: Cluster, id: string): Record<string, unknown> {
  const items = sdnObjects(cluster).fabrics;
  const f = items.get(id);
  if (!f) throw fail(`fabric '${id}' does not exist`);
  return { ...f, id, digest: sectionDigest(items) };
}

function nodeView(cluster: Cluster, key: string): Record<string, unknown> {
  const n = sdnObjects(cluster).fabricNodes.get(key);
  if (!n) throw fail(`node '${key.split('/')[1]}' does not exist in fabric '${key.split('/')[0]}'`);
  return { ...n, digest: sectionDigest(sdnObjects(cluster).fabrics) };
}

export const sdnVnetExtraRoutes: RouteTable = {
  'GET /cluster/sdn/vnets/{vnet}/subnets': ({ cluster, params }) => {
    vnetOf(cluster, params.vnet!);
    const o = sdnObjects(cluster);
    const items = params.running === '1' ? o.running.subnets : o.subnets;
    return [...items.keys()]
      .sort()
      .filter((id) => items.get(id)!.vnet === params.vnet)
      .map((id) => subnetView(items, id));
  },
  'POST /cluster/sdn/vnets/{vnet}/subnets': (req) => saveSubnet(req, true),
  'GET /cluster/sdn/vnets/{vnet}/subnets/{subnet}': ({ cluster, params }) => {
    const o = sdnObjects(cluster);
    const view = subnetView(params.running === '1' ? o.running.subnets : o.subnets, params.subnet!);
    if (view.vnet !== params.vnet) throw paramError({ vnet: 'wrong vnet' });
    return view;
  },
  'PUT /cluster/sdn/vnets/{vnet}/subnets/{subnet}': (req) => saveSubnet(req, false),
  'DELETE /cluster/sdn/vnets/{vnet}/subnets/{subnet}': ({ cluster, params }) => {
    if (!sdnObjects(cluster).subnets.delete(params.subnet!)) throw fail(`sdn subnet '${params.subnet}' does not exist`);
    return null;
  },

  [`GET ${FW}`]: ({ cluster, params }) => {
    vnetOf(cluster, params.vnet!);
    return [{ name: 'rules' }, { name: 'options' }];
  },
  [`GET ${FW}/options`]: ({ cluster, params }) => withDigest(firewallOfVnet(cluster, params.vnet!).options).data,
  [`PUT ${FW}/options`]: ({ cluster, params }) => {
    const fw = firewallOfVnet(cluster, params.vnet!);
    for (const k of (params.delete ?? '').split(/[,;\s]+/).filter(Boolean)) delete fw.options[k];
    for (const k of ['enable', 'policy_forward', 'log_level_forward'])
      if (params[k] !== undefined) fw.options[k] = k === 'enable' ? Number(params[k]) : params[k]!;
    return null;
  },
  [`GET ${FW}/rules`]: ({ cluster, params }) =>
    listWithDigest(firewallOfVnet(cluster, params.vnet!).rules).data.map((rule, pos) => ({ ...rule, pos })),
  [`POST ${FW}/rules`]: ({ cluster, params }) => {
    const rule = ruleFrom(params);
    if (params.enable === undefined) rule.enable = 0;
    firewallOfVnet(cluster, params.vnet!).rules.unshift(rule);
    return null;
  },
  /** get_rule: `pos` echoes the path parameter, a string. */
  [`GET ${FW}/rules/{pos}`]: ({ cluster, params }) => {
    const fw = firewallOfVnet(cluster, params.vnet!);
    ruleAt(fw, params.pos!);
    return { ...listWithDigest(fw.rules).data[Number(params.pos)], pos: params.pos };
  },
  [`PUT ${FW}/rules/{pos}`]: ({ cluster, params }) => {
    const fw = firewallOfVnet(cluster, params.vnet!);
    fw.rules[Number(params.pos)] = ruleFrom(params, ruleAt(fw, params.pos!));
    return null;
  },
  [`DELETE ${FW}/rules/{pos}`]: ({ cluster, params }) => {
    const fw = firewallOfVnet(cluster, params.vnet!);
    ruleAt(fw, params.pos!);
    fw.rules.splice(Number(params.pos), 1);
    return null;
  },

  'GET /cluster/sdn/fabrics': () => [{ subdir: 'fabric' }, { subdir: 'node' }, { subdir: 'all' }],
  'GET /cluster/sdn/fabrics/fabric': (req) =>
    [...sdnObjects(req.cluster).fabrics.keys()]
      .sort()
      .filter((id) => req.perm.has(`/sdn/fabrics/${id}`, ['SDN.Audit', 'SDN.Allocate'], true))
      .map((id) => fabricView(req.cluster, id)),
  'POST /cluster/sdn/fabrics/fabric': ({ cluster, params }) => {
    const items = sdnObjects(cluster).fabrics;
    if (items.has(params.id!)) throw fail(`fabric '${params.id}' already exists`);
    items.set(
      params.id!,
      typedOptions(cluster, 'POST /cluster/sdn/fabrics/fabric', params, ['lock-token', 'digest', 'id']),
    );
    return null;
  },
  'GET /cluster/sdn/fabrics/fabric/{id}': ({ cluster, params }) => fabricView(cluster, params.id!),
  'PUT /cluster/sdn/fabrics/fabric/{id}': ({ cluster, params }) => {
    fabricView(cluster, params.id!);
    const next = {
      ...sdnObjects(cluster).fabrics.get(params.id!)!,
      ...typedOptions(cluster, 'POST /cluster/sdn/fabrics/fabric', params, ['lock-token', 'digest', 'id', 'delete']),
    };
    for (const k of params.delete ? (JSON.parse(params.delete) as string[]) : []) delete next[k];
    sdnObjects(cluster).fabrics.set(params.id!, next);
    return null;
  },
  'DELETE /cluster/sdn/fabrics/fabric/{id}': ({ cluster, params }) => {
    fabricView(cluster, params.id!);
    const o = sdnObjects(cluster);
    o.fabrics.delete(params.id!);
    for (const key of [...o.fabricNodes.keys()]) if (key.startsWith(`${params.id}/`)) o.fabricNodes.delete(key);
    return null;
  },
  'GET /cluster/sdn/fabrics/node': (req) =>
    [...sdnObjects(req.cluster).fabricNodes.keys()]
      .sort()
      .filter((key) => {
        const [fabric, node] = key.split('/') as [string, string];
        return (
          req.perm.has(`/sdn/fabrics/${fabric}`, ['SDN.Audit', 'SDN.Allocate'], true) &&
          req.perm.has(`/nodes/${node}`, ['Sys.Audit', 'Sys.Modify'], true)
        );
      })
      .map((key) => nodeView(req.cluster, key)),
  'GET /cluster/sdn/fabrics/node/{fabric_id}': (req) => {
    fabricView(req.cluster, req.params.fabric_id!);
    return [...sdnObjects(req.cluster).fabricNodes.keys()]
      .filter((key) => key.startsWith(`${req.params.fabric_id}/`))
      .filter((key) => req.perm.has(`/nodes/${key.split('/')[1]}`, ['Sys.Audit', 'Sys.Modify'], true))
      .sort()
      .map((key) => nodeView(req.cluster, key));
  },
  'POST /cluster/sdn/fabrics/node/{fabric_id}': ({ cluster, params }) => {
    const fabric = fabricView(cluster, params.fabric_id!);
    const key = `${params.fabric_id}/${params.node_id}`;
    cluster.requireNode(params.node_id!);
    if (sdnObjects(cluster).fabricNodes.has(key))
      throw fail(`node '${params.node_id}' already exists in fabric '${params.fabric_id}'`);
    const interfaces = params.interfaces === undefined ? [] : (JSON.parse(params.interfaces) as string[]);
    sdnObjects(cluster).fabricNodes.set(key, {
      ...typedOptions(cluster, 'POST /cluster/sdn/fabrics/node/{fabric_id}', params, [
        'lock-token',
        'digest',
        'interfaces',
      ]),
      protocol: String(fabric.protocol),
      interfaces,
    });
    return null;
  },
  'GET /cluster/sdn/fabrics/node/{fabric_id}/{node_id}': ({ cluster, params }) =>
    nodeView(cluster, `${params.fabric_id}/${params.node_id}`),
  'PUT /cluster/sdn/fabrics/node/{fabric_id}/{node_id}': ({ cluster, params }) => {
    const key = `${params.fabric_id}/${params.node_id}`;
    nodeView(cluster, key);
    const next: SdnItem = {
      ...sdnObjects(cluster).fabricNodes.get(key)!,
      ...typedOptions(cluster, 'POST /cluster/sdn/fabrics/node/{fabric_id}', params, [
        'lock-token',
        'digest',
        'interfaces',
        'delete',
      ]),
    };
    if (params.interfaces !== undefined) next.interfaces = JSON.parse(params.interfaces) as string[];
    sdnObjects(cluster).fabricNodes.set(key, next);
    return null;
  },
  'DELETE /cluster/sdn/fabrics/node/{fabric_id}/{node_id}': ({ cluster, params }) => {
    const key = `${params.fabric_id}/${params.node_id}`;
    nodeView(cluster, key);
    sdnObjects(cluster).fabricNodes.delete(key);
    return null;
  },
  'GET /cluster/sdn/fabrics/all': (req) => {
    const fabrics = [...sdnObjects(req.cluster).fabrics.keys()].sort().map((id) => fabricView(req.cluster, id));
    const nodes = [...sdnObjects(req.cluster).fabricNodes.keys()].sort().map((key) => nodeView(req.cluster, key));
    return { fabrics, nodes };
  },

  'GET /cluster/sdn/dry-run': async ({ cluster, params }) => {
    cluster.requireNode(params.node!);
    return {
      'frr-diff': null,
      'interfaces-diff': await diff(sdnInterfaces(cluster.sdnRunning), sdnInterfaces(cluster.sdn)),
    };
  },
};
