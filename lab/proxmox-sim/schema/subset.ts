import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../../src/paths';
import { SIMULATED_ENDPOINTS, type HttpMethod } from './endpoints';

/** The simulator's two flavours and the official schema dump each is held to. */
export const FLAVOURS = { '8.4': '8.4.2', '9.1': '9.1.3' } as const;
export type Flavour = keyof typeof FLAVOURS;

/** One method of the official schema (`info.GET` etc. of an apidata tree node), as far as the validator reads it. */
export interface MethodSchema {
  name?: string;
  allowtoken?: number;
  protected?: number;
  parameters?: { additionalProperties?: number; properties?: Record<string, ParamSchema> };
  returns?: unknown;
  [other: string]: unknown;
}

export interface ParamSchema {
  type?: string;
  optional?: number | string;
  default?: unknown;
  enum?: string[];
  pattern?: string;
  minimum?: number | string;
  maximum?: number | string;
  minLength?: number;
  maxLength?: number;
  format?: string | Record<string, ParamSchema>;
  format_description?: string;
  typetext?: string;
  alias?: string;
  keyAlias?: string;
  default_key?: number;
  requires?: string;
  [other: string]: unknown;
}

export interface SchemaSubset {
  origin: string;
  licence: string;
  source: string;
  endpoints: Record<string, Partial<Record<HttpMethod, MethodSchema>>>;
  /** Every other method of the official schema (`METHOD /path`): the simulator answers 501 "not simulated". */
  unsimulated: string[];
}

interface ApiNode {
  path: string;
  info?: Partial<Record<HttpMethod, MethodSchema>>;
  children?: ApiNode[];
}

export const SUBSET_DIR = path.join(REPO_ROOT, 'lab', 'proxmox-sim', 'schema');
export const subsetFile = (flavour: Flavour) => path.join(SUBSET_DIR, `pve-${FLAVOURS[flavour]}.subset.json`);

/**
 * The folder with the full official dumps (`pve-8.4.2.json`, `pve-9.1.3.json`): `$FERRY_PVE_API_DIR`, or the
 * first `shared/pve-api` found beside the clone or one of its parent folders (the shared folder sits next
 * to the clone on developer machines and CI). Undefined when none is found.
 */
export function findSharedSchemaDir(): string | undefined {
  if (process.env.FERRY_PVE_API_DIR) return process.env.FERRY_PVE_API_DIR;
  for (let dir = path.dirname(REPO_ROOT); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'pve-api');
    if (existsSync(path.join(candidate, `pve-${FLAVOURS['9.1']}.json`))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Extracts the simulator's endpoints from a full official dump (the apidata array), entries unchanged. */
export function extractSubset(apidata: ApiNode[], source: string): SchemaSubset {
  const byPath = new Map<string, ApiNode>();
  const walk = (node: ApiNode) => {
    byPath.set(node.path, node);
    node.children?.forEach(walk);
  };
  apidata.forEach(walk);
  const endpoints: SchemaSubset['endpoints'] = {};
  for (const { path: apiPath, methods } of SIMULATED_ENDPOINTS) {
    const info = byPath.get(apiPath)?.info;
    if (!info) continue; // not in this version (e.g. the SDN lock in 8.4)
    for (const method of methods) {
      const schema = info[method];
      if (!schema) throw new Error(`${source}: ${method} ${apiPath} is not in the official schema`);
      (endpoints[apiPath] ??= {})[method] = schema;
    }
  }
  const unsimulated = [...byPath.values()]
    .flatMap((node) => Object.keys(node.info ?? {}).map((m) => [m, node.path] as const))
    .filter(([m, p]) => !endpoints[p]?.[m as HttpMethod])
    .map(([m, p]) => `${m} ${p}`)
    .sort();
  return {
    origin: `Subset of proxmox/pve-docs api-viewer/apidata.js (${source}, converted to JSON), entries unchanged; regenerate with npm run pve-schema-subset`,
    licence: 'AGPL-3.0-or-later (proxmox/pve-docs debian/copyright)',
    source,
    endpoints,
    unsimulated,
  };
}

const loaded = new Map<Flavour, SchemaSubset>();

/** The committed subset for a flavour (read once). */
export function loadSubset(flavour: Flavour): SchemaSubset {
  let subset = loaded.get(flavour);
  if (!subset) {
    subset = JSON.parse(readFileSync(subsetFile(flavour), 'utf8')) as SchemaSubset;
    loaded.set(flavour, subset);
  }
  return subset;
}
