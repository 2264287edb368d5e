import { readFileSync } from 'node:fs';
import { Agent, request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { httpError, NetboxError, networkError } from './errors';

export interface NetboxHttpOptions {
  /** NetBox's base URL, e.g. `https://netbox.example.com` (a BASE_PATH such as `/netbox` included). */
  url: string;
  /** v1 (40 hex, sent as `Token …`) or v2 (`nbt_KEY.TOKEN`, sent as `Bearer …`). */
  token: string;
  validateCerts?: boolean;
  caFile?: string;
  timeoutMs?: number;
}

export type Query = Record<string, string | number | boolean | ReadonlyArray<string | number> | undefined>;

export interface RequestOptions<T> {
  query?: Query;
  body?: unknown;
  /** Sent as `If-Match`: NetBox 4.6+ refuses the write with 412 if the object's ETag differs. */
  ifMatch?: string;
  schema: z.ZodType<T>;
}

export interface Answer<T> {
  status: number;
  data: T;
  /** The object's version (NetBox 4.6+ sends a weak ETag on detail answers). */
  etag?: string;
}

/** The `Authorization` header for a NetBox token: v2 tokens (`nbt_…`) are Bearer tokens. */
export function authorizationHeader(token: string): string {
  const trimmed = token.trim();
  return trimmed.startsWith('nbt_') ? `Bearer ${trimmed}` : `Token ${trimmed}`;
}

const paginated = <T>(item: z.ZodType<T>) =>
  z.object({ count: z.number().nullable(), next: z.string().nullable(), results: z.array(item) });

/** gunicorn's default `limit_request_line`: NetBox answers a longer request line with HTTP 400. */
export const MAX_REQUEST_LINE = 4094;

/**
 * NetBox's REST API over undici: JSON in and out, every answer checked with a zod schema, errors
 * classified (errors.ts). The token is sent in a header and never appears in messages.
 */
export class NetboxHttp {
  readonly baseUrl: URL;
  private readonly dispatcher: Dispatcher;
  private readonly validateCerts: boolean;
  /** The Authorization header carries the token: an ES private field, so util.inspect never shows it. */
  readonly #auth: string;

  constructor(options: NetboxHttpOptions) {
    this.baseUrl = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
    this.#auth = authorizationHeader(options.token);
    this.validateCerts = options.validateCerts ?? true;
    const timeout = options.timeoutMs ?? 30_000;
    let ca: Buffer | undefined;
    if (options.caFile) {
      try {
        ca = readFileSync(options.caFile);
      } catch (err) {
        throw new NetboxError(
          `netbox.caFile ${options.caFile}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
          'invalid',
        );
      }
    }
    this.dispatcher = new Agent({
      connect: {
        rejectUnauthorized: options.validateCerts ?? true,
        ...(ca ? { ca } : {}),
      },
      headersTimeout: timeout,
      bodyTimeout: timeout,
      connectTimeout: Math.min(timeout, 10_000),
    });
  }

  /** TLS as configured: plaintext for http, else verified or not. */
  get tls(): 'plaintext' | 'verified' | 'not-verified' {
    if (this.baseUrl.protocol === 'http:') return 'plaintext';
    return this.validateCerts ? 'verified' : 'not-verified';
  }

  /** `api/...` relative to the base URL, with the query string. */
  url(path: string, query: Query = {}): URL {
    const url = new URL(path.replace(/^\//, ''), this.baseUrl);
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(v));
    }
    return url;
  }

  async request<T>(method: Dispatcher.HttpMethod, path: string, options: RequestOptions<T>): Promise<Answer<T>> {
    return this.send(method, this.url(path, options.query), options);
  }

  /**
   * Every object of a list endpoint, following `next` links (offset or cursor pagination alike). Offset
   * pages are ordered by id, so an object created or deleted meanwhile shifts no other one across a
   * page boundary; an object seen twice anyway is kept once, and a `next` that repeats is an error
   * rather than a loop.
   */
  async list<T>(path: string, query: Query, item: z.ZodType<T>): Promise<T[]> {
    const schema = paginated(item);
    const results: T[] = [];
    const ids = new Set<unknown>();
    const ordered = query.ordering === undefined && query.start === undefined ? { ordering: 'id' } : {};
    let url: URL | undefined = this.url(path, { limit: 250, ...ordered, ...query });
    const visited = new Set<string>();
    while (url) {
      visited.add(url.href);
      const { data }: Answer<z.infer<typeof schema>> = await this.send('GET', url, { schema });
      for (const result of data.results) {
        const id = (result as { id?: unknown }).id;
        if (id !== undefined && ids.has(id)) continue;
        if (id !== undefined) ids.add(id);
        results.push(result);
      }
      // `next` names the host as NetBox saw it (a proxy may differ): keep our origin, take its path and query.
      const next: URL | undefined = data.next ? new URL(data.next) : undefined;
      url = next ? new URL(`${next.pathname}${next.search}`, this.baseUrl.origin) : undefined;
      if (url && visited.has(url.href)) {
        throw new NetboxError(
          `NetBox GET ${url.pathname}: the next page is one already read (${url.search}); the listing would not end`,
          'invalid',
        );
      }
    }
    return results;
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async send<T>(method: Dispatcher.HttpMethod, url: URL, options: RequestOptions<T>): Promise<Answer<T>> {
    const what = `NetBox ${method} ${url.pathname}`;
    const requestLine = `${method} ${url.pathname}${url.search} HTTP/1.1`.length;
    if (requestLine > MAX_REQUEST_LINE)
      throw new NetboxError(
        `${what}: a request line of ${requestLine} bytes, longer than the ${MAX_REQUEST_LINE} NetBox's gunicorn accepts; the query should have been split (a bug in ferry)`,
        'invalid',
      );
    const headers: Record<string, string> = { authorization: this.#auth, accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.ifMatch) headers['if-match'] = options.ifMatch;

    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        dispatcher: this.dispatcher,
      });
    } catch (err) {
      throw networkError(what, err);
    }
    const text = await response.body.text();
    const etag = header(response.headers, 'etag');
    let body: unknown = undefined;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    if (response.statusCode >= 400) {
      const retryAfter = Number(header(response.headers, 'retry-after'));
      throw httpError(
        what,
        response.statusCode,
        body,
        Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined,
        etag,
      );
    }
    if (response.statusCode >= 300) {
      throw new NetboxError(
        `${what}: HTTP ${response.statusCode} redirect to ${header(response.headers, 'location')}; check netbox.url`,
        'invalid',
        {
          status: response.statusCode,
        },
      );
    }
    const parsed = options.schema.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
      throw new NetboxError(
        `${what}: unexpected answer (${issues.join('; ')}); is ${this.baseUrl.href} a NetBox 4.x?`,
        'invalid',
        {
          status: response.statusCode,
        },
      );
    }
    return { status: response.statusCode, data: parsed.data, etag };
  }
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
