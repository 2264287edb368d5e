import { fail, paramError } from '../api-error';
import type { Cluster } from '../cluster';
import { sdnObjects, sectionDigest, typedOptions, type SdnItem } from '../sdn/objects';
import type { RouteTable, SimRequest } from './types';

/**
 * pve-network's controllers, IPAMs, DNS plugins and subnets (API2/Network/SDN/Controllers.pm, Ipams.pm,
 * Dns.pm, Subnets.pm): each listed as its $api_sdn_*_config gives it (the id under its own key, the
 * options, the file's digest), created with the options its plugin requires ("property is missing"),
 * updated and deleted under the SDN config lock. A PowerDNS plugin's API is called on create as
 * PowerdnsPlugin's on_update_hook does (`GET <url>` with its key), so it must answer. A subnet's id is
 * `<zone>-<network>-<mask>`; its cidr, network, mask and zone come from that id.
 */
const CONTROL = ['lock-token', 'digest', 'delete', 'pending', 'running'];

const REQUIRED: Record<string, string[]> = {
  evpn: ['asn'],
  bgp: ['node', 'asn', 'peers'],
  isis: ['isis-domain', 'isis-net', 'isis-ifaces', 'node'],
  faucet: [],
};

function checkToken(req: SimRequest, errmsg: string): void {
  const held = req.cluster.sdnLockToken;
  if (held !== undefined && req.params['lock-token'] !== held) throw fail(`${errmsg}: invalid lock token provided!`);
}

function requireOptions(item: SdnItem, names: string[]): void {
  const missing = names.filter((n) => item[n] === undefined);
  if (missing.length)
    throw paramError(Object.fromEntries(missing.map((n) => [n, 'property is missing and it is not optional'])));
}

function withDigest(items: Map<string, SdnItem>, key: string, id: string): Record<string, unknown> {
  const item = items.get(id);
  if (!item) throw fail(`sdn ${key === 'dns' ? 'dns' : key} '${id}' does not exist`);
  return { ...item, [key]: id, digest: sectionDigest(items) };
}

/** The running/pending views of a section (SDN.pm pending_config: `state` and the `pending` values). */
function view(cluster: Cluster, section: 'controllers' | 'subnets', params: Record<string, string>) {
  const o = sdnObjects(cluster);
  if (params.running === '1') return o.running[section];
  return o[section];
}

function pendingState(cluster: Cluster, section: 'controllers' | 'subnets', id: string, item: Record<string, unknown>) {
  const running = sdnObjects(cluster).running[section].get(id);
  const edited = sdnObjects(cluster)[section].get(id);
  if (!running) return { ...item, state: 'new' };
  if (!edited) return { ...item, state: 'deleted' };
  const changed = Object.entries(edited).filter(([k, v]) => String(running[k]) !== String(v));
  if (changed.length === 0) return item;
  return { ...running, ...item, state: 'changed', pending: Object.fromEntries(changed) };
}

async function powerdnsReachable(item: SdnItem): Promise<void> {
  try {
    const res = await fetch(String(item.url), { headers: { 'X-API-Key': String(item.key) } });
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
    await res.json();
  } catch (err) {
    throw new Error(`dns api error: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** One generic section: list, read, create, update, delete. */
function section(
  name: 'controllers' | 'ipams' | 'dns',
  key: string,
  check: (req: SimRequest, item: SdnItem) => Promise<void> | void,
): RouteTable {
  const base = `/cluster/sdn/${name}`;
  const items = (req: SimRequest) => sdnObjects(req.cluster)[name];
  const privPath = (id: string) => `/sdn/${name}/${id}`;
  return {
    [`GET ${base}`]: (req) => {
      const source = name === 'controllers' ? view(req.cluster, 'controllers', req.params) : items(req);
      return [...source.keys()]
        .sort()
        .filter((id) => req.perm.has(privPath(id), ['SDN.Audit', 'SDN.Allocate'], true))
        .map((id) => withDigest(source, key, id))
        .filter((i) => !req.params.type || i.type === req.params.type)
        .map((i) =>
          name === 'controllers' && req.params.pending === '1'
            ? pendingState(req.cluster, 'controllers', String(i[key]), i)
            : i,
        );
    },
    [`GET ${base}/{${key}}`]: (req) => {
      const source = name === 'controllers' ? view(req.cluster, 'controllers', req.params) : items(req);
      return withDigest(source, key, req.params[key]!);
    },
    [`POST ${base}`]: async (req) => {
      const id = req.params[key]!;
      const item = typedOptions(req.cluster, `POST ${base}`, req.params, [...CONTROL, key]);
      await check(req, item);
      checkToken(req, `create sdn ${name === 'dns' ? 'dns' : name.replace(/s$/, '')} object failed`);
      if (items(req).has(id))
        throw fail(`sdn ${name === 'dns' ? 'dns' : name.replace(/s$/, '')} object ID '${id}' already defined`);
      items(req).set(id, item);
      return null;
    },
    [`PUT ${base}/{${key}}`]: async (req) => {
      const id = req.params[key]!;
      checkToken(req, `update sdn ${name === 'dns' ? 'dns' : name.replace(/s$/, '')} object failed`);
      const existing = items(req).get(id);
      if (!existing) throw fail(`sdn ${key} '${id}' does not exist`);
      if (req.params.digest !== undefined && req.params.digest !== sectionDigest(items(req)))
        throw fail('detected modified configuration - file changed by other user? Try again.');
      const next: SdnItem = {
        ...existing,
        ...typedOptions(req.cluster, `PUT ${base}/{${key}}`, req.params, [...CONTROL, key]),
      };
      for (const k of (req.params.delete ?? '').split(/[,;\s]+/).filter(Boolean)) delete next[k];
      await check(req, next);
      items(req).set(id, next);
      return null;
    },
    [`DELETE ${base}/{${key}}`]: (req) => {
      const id = req.params[key]!;
      checkToken(req, `delete sdn ${name === 'dns' ? 'dns' : name.replace(/s$/, '')} object failed`);
      if (!items(req).delete(id)) throw fail(`sdn ${key} object ID '${id}' does not exist`);
      return null;
    },
  };
}

const controllerCheck = (req: SimRequest, item: SdnItem) => {
  const type = String(item.type ?? sdnObjects(req.cluster).controllers.get(req.params.controller!)?.type);
  requireOptions(item, REQUIRED[type] ?? []);
  if (type === 'evpn' && req.cluster.flavour === '8.4') requireOptions(item, ['peers']);
  const others = [...sdnObjects(req.cluster).controllers].filter(
    ([id, c]) => id !== req.params.controller && c.type === type,
  );
  if (type === 'evpn' && others.length > 0) throw fail('only 1 global evpn controller can be defined');
};

const dnsCheck = async (_req: SimRequest, item: SdnItem) => {
  requireOptions(item, ['url', 'key']);
  await powerdnsReachable(item);
};

export const sdnObjectRoutes: RouteTable = {
  'GET /cluster/sdn': ({ cluster }) =>
    ['vnets', 'zones', 'controllers', 'ipams', 'dns', ...(cluster.flavour === '8.4' ? [] : ['fabrics'])].map((id) => ({
      id,
    })),

  ...section('controllers', 'controller', controllerCheck),
  ...section('ipams', 'ipam', (_req, item) =>
    requireOptions(item, item.type === 'netbox' || item.type === 'phpipam' ? ['url', 'token'] : []),
  ),
  ...section('dns', 'dns', dnsCheck),

  /** The pve IPAM's allocations for subnets of DHCP zones (the simulator runs no DHCP: none). */
  'GET /cluster/sdn/ipams/{ipam}/status': ({ params }) => {
    if (params.ipam !== 'pve') throw fail('Currently only PVE IPAM is supported!');
    return [];
  },
};
