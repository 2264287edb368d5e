import { PERL_TYPES, SCHEMA_DEVIATIONS, type PerlJsonType } from '../../lab/proxmox-sim/schema/perl-types';
import { checkReturns, type ReturnsSchema } from '../../lab/proxmox-sim/schema/returns';
import { loadSubset, type Flavour } from '../../lab/proxmox-sim/schema/subset';
import type { SimFixture } from './proxmox';

/**
 * Calls one route of the simulator and holds its answer to the schema's `returns` (booleans as PVE's
 * 0/1) — except the deviations PVE itself has (SCHEMA_DEVIATIONS) — and to the JSON types PVE's Perl
 * code writes (PERL_TYPES): every rule of the route must find a value to check. Records the route as
 * covered.
 */
const isType: Record<PerlJsonType, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  'numeric string': (v) => typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v),
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === 'number',
  bit: (v) => v === 0 || v === 1,
};

/** The values at a rule's path (`a.b`, `[]` for each item, `[key=cores]` for the items with that field, `` for the answer). */
function valuesAt(value: unknown, at: string): unknown[] {
  let values = [value];
  for (const part of at ? at.split('.') : []) {
    values = values.flatMap((v) => {
      if (part === '[]') return Array.isArray(v) ? v : [];
      const select = /^\[(\w+)=([^\]]*)\]$/.exec(part);
      if (select)
        return Array.isArray(v)
          ? v.filter((item) => (item as Record<string, unknown>)?.[select[1]!] === select[2])
          : [];
      return v !== null &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        (v as Record<string, unknown>)[part] !== undefined
        ? [(v as Record<string, unknown>)[part]]
        : [];
    });
  }
  return values;
}

export function answerProblems(flavour: Flavour, route: string, data: unknown): string[] {
  const [method, template] = route.split(' ') as ['GET', string];
  const schema = loadSubset(flavour).endpoints[template]?.[method];
  if (!schema) return [`${route} is not in the ${flavour} schema subset`];
  const deviations = SCHEMA_DEVIATIONS.filter((d) => d.route === route);
  const problems = checkReturns(schema.returns as ReturnsSchema, data, '', { perl: true }).filter(
    (e) => !deviations.some((d) => d.message.test(e)),
  );
  for (const rule of PERL_TYPES.filter((r) => r.route === route)) {
    const values = valuesAt(data, rule.at);
    if (values.length === 0) problems.push(`${rule.at || '(answer)'}: no value to check as ${rule.type}`);
    for (const v of values)
      if (!isType[rule.type](v))
        problems.push(`${rule.at || '(answer)'} is ${JSON.stringify(v)}, not a ${rule.type} (${rule.source})`);
  }
  return problems;
}

export interface RouteCaller {
  /** Calls `METHOD template` with its path parameters filled; expects 2xx and a well-typed answer. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read field by field
  call(route: string, params?: Record<string, string>, form?: Record<string, string>): Promise<any>;
  covered: Set<string>;
}

export function routeCaller(
  fx: SimFixture,
  flavour: Flavour,
  fill: Record<string, string>,
  headers?: Record<string, string>,
): RouteCaller {
  const covered = new Set<string>();
  return {
    covered,
    async call(route, params = {}, form) {
      const [method, template] = route.split(' ') as [string, string];
      const values = { ...fill, ...params };
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
        if (values[name] === undefined) throw new Error(`${route}: no value for {${name}}`);
        return encodeURIComponent(values[name]!);
      });
      const query = method === 'GET' || method === 'DELETE' ? form : undefined;
      const url = `/api2/json${path}${query ? `?${new URLSearchParams(query)}` : ''}`;
      const r = await fx.raw(method, url, { ...(query || !form ? {} : { form }), ...(headers ? { headers } : {}) });
      expect([route, r.status, r.body?.message, r.body?.errors]).toEqual([route, 200, undefined, undefined]);
      expect([route, answerProblems(flavour, route, r.body.data)]).toEqual([route, []]);
      covered.add(route);
      return r.body.data;
    },
  };
}

/** Every route of a flavour's subset (`METHOD /template`). */
export function allRoutes(flavour: Flavour): string[] {
  return Object.entries(loadSubset(flavour).endpoints).flatMap(([template, methods]) =>
    Object.keys(methods).map((m) => `${m} ${template}`),
  );
}
