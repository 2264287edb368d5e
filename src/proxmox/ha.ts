import { z } from 'zod';
import type { ProxmoxApi } from './api';
import { ProxmoxInputError } from './errors';
import { nullSchema } from './schemas';

/**
 * The HA manager's configuration (`/cluster/ha/…`): resources, groups (PVE 8; deprecated on 9) and rules
 * (PVE 9). Writes check first, so a retry finds its own work done.
 */
const resourceListSchema = z.array(
  z.looseObject({ sid: z.string(), group: z.string().optional(), state: z.string().optional() }),
);
const groupListSchema = z.array(z.looseObject({ group: z.string() }));
const ruleListSchema = z.array(z.looseObject({ rule: z.string(), type: z.string() }));
const ruleSchema = z.looseObject({
  rule: z.string(),
  type: z.string(),
  resources: z.string().optional(),
  digest: z.string().optional(),
});

export interface HaResourceSpec {
  sid: string;
  group?: string;
  state?: string;
  maxRestart?: number;
  maxRelocate?: number;
  comment?: string;
}

const SID = /^[a-z]+:\d+$/;

function sidPath(sid: string): string {
  if (!SID.test(sid)) throw new ProxmoxInputError(`not an HA resource id (vm:<vmid>): ${sid}`);
  return `/cluster/ha/resources/${sid}`;
}

export class HaApi {
  constructor(private readonly api: ProxmoxApi) {}

  resources(): Promise<Array<z.output<typeof resourceListSchema>[number]>> {
    return this.api.call('GET', '/cluster/ha/resources', {}, resourceListSchema);
  }

  async groups(): Promise<string[]> {
    return (await this.api.call('GET', '/cluster/ha/groups', {}, groupListSchema)).map((g) => g.group);
  }

  /** Rule ids; undefined on PVE 8, which has none. */
  async rules(): Promise<string[] | undefined> {
    if ((await this.api.version()).major < 9) return undefined;
    return (await this.api.call('GET', '/cluster/ha/rules', {}, ruleListSchema)).map((r) => r.rule);
  }

  /** Creates the resource unless it exists; `created` false when it was there already. */
  async ensureResource(spec: HaResourceSpec): Promise<{ created: boolean }> {
    sidPath(spec.sid);
    if ((await this.resources()).some((r) => r.sid === spec.sid)) return { created: false };
    const params = {
      sid: spec.sid,
      group: spec.group,
      state: spec.state,
      max_restart: spec.maxRestart,
      max_relocate: spec.maxRelocate,
      comment: spec.comment,
    };
    await this.api.call('POST', '/cluster/ha/resources', params, nullSchema);
    return { created: true };
  }

  /** Adds a resource to a rule's resources (PVE 9), unless it is there. */
  async addToRule(
    rule: string,
    sid: string,
    withResource: (resources: string, sid: string) => string,
  ): Promise<{ changed: boolean }> {
    const current = await this.api.call('GET', `/cluster/ha/rules/${encodeURIComponent(rule)}`, {}, ruleSchema);
    const resources = withResource(current.resources ?? '', sid);
    if (resources === current.resources) return { changed: false };
    await this.api.call(
      'PUT',
      `/cluster/ha/rules/${encodeURIComponent(rule)}`,
      { type: current.type, resources, digest: current.digest },
      nullSchema,
    );
    return { changed: true };
  }

  /** Removes the resource (PVE 9: and from every rule naming it, dropping a rule left empty); absent: nothing to do. */
  async removeResource(sid: string): Promise<{ removed: boolean }> {
    const path = sidPath(sid);
    if (!(await this.resources()).some((r) => r.sid === sid)) return { removed: false };
    await this.api.call('DELETE', path, {}, nullSchema);
    return { removed: true };
  }
}
