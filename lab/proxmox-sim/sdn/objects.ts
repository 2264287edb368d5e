import { createHash } from 'node:crypto';
import type { Cluster } from '../cluster';
import { loadSubset, type ParamSchema } from '../schema/subset';

/**
 * The SDN objects beside zones and vnets, each a pve-network section config (sdn/controllers.cfg,
 * subnets.cfg, ipams.cfg, dns.cfg, fabrics.cfg, firewall/<vnet>.fw): items by id with their options,
 * the file's digest, and for controllers, subnets and fabrics the copy the last apply made running.
 * Values are typed as SectionConfig's check_value leaves them: booleans, integers and numbers as
 * numbers (by the create method's schema), everything else a string. The `pve` IPAM always exists
 * (Ipams.pm config adds it).
 */
export type SdnItem = Record<string, string | number | string[]>;

export interface VnetFirewall {
  options: Record<string, string | number>;
  rules: Array<Record<string, string | number>>;
}

export interface SdnObjects {
  controllers: Map<string, SdnItem>;
  subnets: Map<string, SdnItem>;
  ipams: Map<string, SdnItem>;
  dns: Map<string, SdnItem>;
  fabrics: Map<string, SdnItem>;
  /** Fabric nodes by `<fabric_id>/<node_id>`. */
  fabricNodes: Map<string, SdnItem>;
  running: { controllers: Map<string, SdnItem>; subnets: Map<string, SdnItem>; fabrics: Map<string, SdnItem> };
  firewalls: Map<string, VnetFirewall>;
}

const objects = new WeakMap<Cluster, SdnObjects>();

export function sdnObjects(cluster: Cluster): SdnObjects {
  let o = objects.get(cluster);
  if (!o) {
    o = {
      controllers: new Map(),
      subnets: new Map(),
      ipams: new Map([['pve', { type: 'pve' }]]),
      dns: new Map(),
      fabrics: new Map(),
      fabricNodes: new Map(),
      running: { controllers: new Map(), subnets: new Map(), fabrics: new Map() },
      firewalls: new Map(),
    };
    objects.set(cluster, o);
  }
  return o;
}

/** PUT /cluster/sdn: what is edited becomes running. */
export function applySdnObjects(cluster: Cluster): void {
  const o = sdnObjects(cluster);
  o.running = {
    controllers: structuredClone(o.controllers),
    subnets: structuredClone(o.subnets),
    fabrics: structuredClone(o.fabrics),
  };
}

/** SHA1 of a section config as written (`<type>: <id>` and tab-indented options). */
export function sectionDigest(items: Map<string, SdnItem>): string {
  const text = [...items.keys()]
    .sort()
    .map((id) => {
      const { type, ...opts } = items.get(id)!;
      return `${String(type ?? 'item')}: ${id}\n${Object.entries(opts)
        .map(([k, v]) => `\t${k} ${Array.isArray(v) ? v.join(',') : String(v)}`)
        .join('\n')}`;
    })
    .join('\n\n');
  return createHash('sha1').update(text).digest('hex');
}

/** The options of a create or update request, typed by the method's schema as check_value does. */
export function typedOptions(
  cluster: Cluster,
  route: string,
  params: Record<string, string>,
  control: string[],
): SdnItem {
  const [method, template] = route.split(' ') as ['POST', string];
  const props: Record<string, ParamSchema> =
    loadSubset(cluster.flavour).endpoints[template]?.[method]?.parameters?.properties ?? {};
  const out: SdnItem = {};
  for (const [key, value] of Object.entries(params)) {
    if (control.includes(key)) continue;
    const type = props[key]?.type;
    out[key] = type === 'integer' || type === 'number' || type === 'boolean' ? Number(value) : value;
  }
  return out;
}
