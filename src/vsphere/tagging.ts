import type { Pool } from 'undici';
import { z } from 'zod';
import type { VsphereConfig } from '../config';
import { FerryError } from '../errors';
import { tlsProblem } from '../tls-errors';
import { vcenterOrigin, vcenterPool } from './https-pool';

/**
 * vSphere tags live in the vSphere Automation API (REST), not in vim25: ferry reads them to select a
 * wave's VMs by tag. The older `/rest` API is used because both vCenter 6.5–8 and vcsim serve it.
 */
const valueOf = <T extends z.ZodType>(schema: T) => z.object({ value: schema });
const idsSchema = valueOf(z.array(z.string()));
const tagSchema = valueOf(z.object({ id: z.string(), name: z.string(), category_id: z.string() }));
const categorySchema = valueOf(z.object({ id: z.string(), name: z.string() }));
const attachedSchema = valueOf(
  z.array(z.object({ tag_id: z.string(), object_ids: z.array(z.object({ type: z.string(), id: z.string() })) })),
);

const TAGGING = '/rest/com/vmware/cis/tagging';

type TaggingConfig = Pick<VsphereConfig, 'host' | 'port' | 'user' | 'password' | 'validateCerts' | 'caFile'>;

export class VsphereTagging {
  private readonly pool: Pool;
  private readonly origin: string;
  /** Holds the password and the session id: ES private fields, so util.inspect never shows them. */
  readonly #config: TaggingConfig;
  #session?: string;

  constructor(config: TaggingConfig) {
    this.#config = config;
    this.origin = vcenterOrigin(config.host, config.port);
    this.pool = vcenterPool({
      host: config.host,
      port: config.port,
      validateCerts: config.validateCerts,
      caFile: config.caFile,
      connections: 2,
    });
  }

  /**
   * Moids of the VMs carrying the tag `name` (or `category/name`). A tag that does not exist is an
   * error that says so, not an empty selection. With a category, only that category's tags are read.
   */
  async vmsTagged(tag: string): Promise<string[]> {
    const [category, name] = tag.includes('/') ? (tag.split('/', 2) as [string, string]) : [undefined, tag];
    let tagIds: string[];
    if (category === undefined) {
      tagIds = this.parse(idsSchema, await this.call('GET', `${TAGGING}/tag`), 'tag list').value;
    } else {
      tagIds = [];
      for (const categoryId of await this.categoriesNamed(category)) {
        const path = `${TAGGING}/tag/id:${encodeURIComponent(categoryId)}?~action=list-tags-for-category`;
        tagIds.push(...this.parse(idsSchema, await this.call('POST', path), 'tags of a category').value);
      }
    }
    const matching: string[] = [];
    for (const id of tagIds) {
      const found = this.parse(
        tagSchema,
        await this.call('GET', `${TAGGING}/tag/id:${encodeURIComponent(id)}`),
        `tag ${id}`,
      ).value;
      if (found.name === name) matching.push(found.id);
    }
    if (matching.length === 0) throw new FerryError(`vCenter has no tag "${tag}"`, 'invalid', { details: { tag } });
    const attached = this.parse(
      attachedSchema,
      await this.call('POST', `${TAGGING}/tag-association?~action=list-attached-objects-on-tags`, {
        tag_ids: matching,
      }),
      'objects of tags',
    ).value;
    return [
      ...new Set(attached.flatMap((a) => a.object_ids.filter((o) => o.type === 'VirtualMachine').map((o) => o.id))),
    ];
  }

  async close(): Promise<void> {
    if (this.#session) await this.call('DELETE', '/rest/com/vmware/cis/session').catch(() => undefined);
    await this.pool.close();
  }

  /** Ids of the categories called `name` (names are unique in vCenter; a list keeps this honest). */
  private async categoriesNamed(name: string): Promise<string[]> {
    const ids = this.parse(idsSchema, await this.call('GET', `${TAGGING}/category`), 'category list').value;
    const named: string[] = [];
    for (const id of ids) {
      const found = this.parse(
        categorySchema,
        await this.call('GET', `${TAGGING}/category/id:${encodeURIComponent(id)}`),
        `category ${id}`,
      ).value;
      if (found.name === name) named.push(found.id);
    }
    return named;
  }

  /** A zod check of an answer, failing as a FerryError that names what was read. */
  private parse<T extends z.ZodType>(schema: T, body: unknown, what: string): z.infer<T> {
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data as z.infer<T>;
    const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
    throw new FerryError(`vCenter ${this.origin} Automation API: unexpected ${what} (${issues.join('; ')})`, 'invalid');
  }

  private async login(): Promise<string> {
    const basic = Buffer.from(`${this.#config.user}:${this.#config.password}`).toString('base64');
    const answer = await this.raw('POST', '/rest/com/vmware/cis/session', { authorization: `Basic ${basic}` });
    if (answer.status === 401 || answer.status === 403)
      throw new FerryError(`vCenter refused the login of ${this.#config.user} to the Automation API`, 'permission');
    if (answer.status >= 400)
      throw new FerryError(
        `vCenter Automation API login: HTTP ${answer.status}`,
        answer.status >= 500 ? 'transient' : 'invalid',
      );
    this.#session = this.parse(valueOf(z.string()), answer.body, 'session').value;
    return this.#session;
  }

  private async call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const session = this.#session ?? (await this.login());
      const answer = await this.raw(method, path, { 'vmware-api-session-id': session }, body);
      if (answer.status === 401 && attempt === 0) {
        this.#session = undefined; // expired: log in again, once
        continue;
      }
      if (answer.status >= 500) throw new FerryError(`vCenter ${method} ${path}: HTTP ${answer.status}`, 'transient');
      if (answer.status === 401 || answer.status === 403) {
        throw new FerryError(
          `vCenter ${method} ${path}: HTTP ${answer.status}: ${this.#config.user} may not read tags; grant it the privilege to read vSphere tags`,
          'permission',
        );
      }
      if (answer.status >= 400)
        throw new FerryError(
          `vCenter ${method} ${path}: HTTP ${answer.status}`,
          answer.status === 404 ? 'not-found' : 'invalid',
        );
      return answer.body;
    }
  }

  private async raw(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    let response;
    try {
      response = await this.pool.request({
        method: method as 'GET',
        path,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      const tls = tlsProblem(err);
      if (tls) {
        const hint = this.#config.caFile
          ? `check host and port, and that the CA in ${this.#config.caFile} signed it`
          : 'check host and port, set vsphere.caFile (VMWARE_CA_FILE) to the CA that signed it, or validateCerts: false to skip verification';
        throw new FerryError(
          `TLS: vCenter ${this.origin} Automation API: ${tls.problem} (${tls.code}); ${hint}`,
          'invalid',
          { cause: err, details: { code: tls.code } },
        );
      }
      throw new FerryError(
        `vCenter ${this.origin} did not answer ${method} ${path}: ${(err as Error).message}`,
        'transient',
        { cause: err },
      );
    }
    const text = await response.body.text();
    if (!text) return { status: response.statusCode, body: undefined };
    try {
      return { status: response.statusCode, body: JSON.parse(text) as unknown };
    } catch {
      // An error page from a proxy, or not vCenter at all: say what came back rather than a SyntaxError.
      if (response.statusCode >= 400) return { status: response.statusCode, body: text };
      throw new FerryError(
        `vCenter ${method} ${path}: HTTP ${response.statusCode} answer is not JSON: ${text.slice(0, 120).trim()}`,
        'invalid',
      );
    }
  }
}
