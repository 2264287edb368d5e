import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { z } from 'zod';
import type { VsphereConfig } from '../config';
import { FerryError } from '../errors';

/**
 * vSphere tags live in the vSphere Automation API (REST), not in vim25: ferry reads them to select a
 * wave's VMs by tag. The older `/rest` API is used because both vCenter 6.5–8 and vcsim serve it.
 */
const valueOf = <T extends z.ZodType>(schema: T) => z.object({ value: schema });
const tagSchema = valueOf(z.object({ id: z.string(), name: z.string(), category_id: z.string() }));
const categorySchema = valueOf(z.object({ id: z.string(), name: z.string() }));
const attachedSchema = valueOf(z.array(z.object({ tag_id: z.string(), object_ids: z.array(z.object({ type: z.string(), id: z.string() })) })));

export class VsphereTagging {
  private readonly pool: Pool;
  private readonly origin: string;
  private session?: string;

  constructor(private readonly config: Pick<VsphereConfig, 'host' | 'port' | 'user' | 'password' | 'validateCerts' | 'caFile'>) {
    const host = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
    this.origin = `https://${host}:${config.port}`;
    const ca = config.caFile ? readFileSync(config.caFile, 'utf8') : undefined;
    this.pool = new Pool(this.origin, { connections: 2, connect: { ca, rejectUnauthorized: config.validateCerts, timeout: 15_000 } });
  }

  /**
   * Moids of the VMs carrying the tag `name` (or `category/name`). A tag that does not exist is an
   * error that says so, not an empty selection.
   */
  async vmsTagged(tag: string): Promise<string[]> {
    const [category, name] = tag.includes('/') ? (tag.split('/', 2) as [string, string]) : [undefined, tag];
    const ids = valueOf(z.array(z.string())).parse(await this.call('GET', '/rest/com/vmware/cis/tagging/tag')).value;
    const matching: string[] = [];
    for (const id of ids) {
      const found = tagSchema.parse(await this.call('GET', `/rest/com/vmware/cis/tagging/tag/id:${encodeURIComponent(id)}`)).value;
      if (found.name !== name) continue;
      if (category !== undefined) {
        const cat = categorySchema.parse(await this.call('GET', `/rest/com/vmware/cis/tagging/category/id:${encodeURIComponent(found.category_id)}`)).value;
        if (cat.name !== category) continue;
      }
      matching.push(found.id);
    }
    if (matching.length === 0) throw new FerryError(`vCenter has no tag "${tag}"`, 'invalid', { details: { tag } });
    const attached = attachedSchema.parse(
      await this.call('POST', '/rest/com/vmware/cis/tagging/tag-association?~action=list-attached-objects-on-tags', { tag_ids: matching }),
    ).value;
    return [...new Set(attached.flatMap((a) => a.object_ids.filter((o) => o.type === 'VirtualMachine').map((o) => o.id)))];
  }

  async close(): Promise<void> {
    if (this.session) await this.call('DELETE', '/rest/com/vmware/cis/session').catch(() => undefined);
    await this.pool.close();
  }

  private async login(): Promise<string> {
    const basic = Buffer.from(`${this.config.user}:${this.config.password}`).toString('base64');
    const answer = await this.raw('POST', '/rest/com/vmware/cis/session', { authorization: `Basic ${basic}` });
    if (answer.status === 401 || answer.status === 403) throw new FerryError(`vCenter refused the login of ${this.config.user} to the Automation API`, 'permission');
    this.session = valueOf(z.string()).parse(answer.body).value;
    return this.session;
  }

  private async call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const session = this.session ?? (await this.login());
      const answer = await this.raw(method, path, { 'vmware-api-session-id': session }, body);
      if (answer.status === 401 && attempt === 0) {
        this.session = undefined; // expired: log in again, once
        continue;
      }
      if (answer.status >= 500) throw new FerryError(`vCenter ${method} ${path}: HTTP ${answer.status}`, 'transient');
      if (answer.status >= 400) throw new FerryError(`vCenter ${method} ${path}: HTTP ${answer.status}`, answer.status === 404 ? 'not-found' : 'invalid');
      return answer.body;
    }
  }

  private async raw(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: unknown }> {
    let response;
    try {
      response = await this.pool.request({
        method: method as 'GET',
        path,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new FerryError(`vCenter ${this.origin} did not answer ${method} ${path}: ${(err as Error).message}`, 'transient', { cause: err });
    }
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined };
  }
}
