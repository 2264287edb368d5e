import { readFileSync } from 'node:fs';
import { Pool, errors as undiciErrors } from 'undici';
import { z } from 'zod';
import { TicketAuth, TokenAuth, type AuthHeaders } from './auth';
import { tlsProblem } from '../tls-errors';
import { ticketSchema } from './schemas';
import { flag, pveBool } from './quirks';
import {
  errorFromResponse,
  ProxmoxError,
  ProxmoxResponseError,
  ProxmoxTlsError,
  ProxmoxTransientError,
} from './errors';

/**
 * The one HTTP path to a Proxmox endpoint: one undici keep-alive Pool per endpoint (at most
 * `connections` sockets), TLS verified unless the endpoint says otherwise (optionally against a CA file),
 * token or ticket auth, form-encoded bodies, `{data}` unwrapped and checked with a zod schema, and every
 * failure turned into a typed ProxmoxError.
 */
export interface ProxmoxEndpoint {
  host: string;
  port: number;
  /** Verify the server certificate (explicit per endpoint). */
  validateCerts: boolean;
  /** PEM CA (or self-signed certificate) to trust. */
  caFile?: string;
  auth:
    | { kind: 'token'; /** `user@realm!name` */ tokenId: string; secret: string }
    | { kind: 'ticket'; username: string; password: string; renewAfterMs?: number };
  /** Pool size: the most sockets this client opens to the endpoint. */
  connections?: number;
  /** Per-request deadline (headers and body). */
  requestTimeoutMs?: number;
}

/** An array goes as the key repeated, as PVE takes an `array` parameter's items (agent/exec's `command`). */
export type ParamValue = string | number | boolean | readonly string[] | undefined;
export type Params = Record<string, ParamValue>;
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
/** Result attributes PVE sends beside `data`. */
export interface ResultAttributes {
  /** Lists read in pages (task log, task list): how many entries there are in all. */
  total?: number;
}

const BASE = '/api2/json';

/**
 * A read that failed on the way (a dropped connection, a 502/503, a 5xx PVE gives no known cause for) is
 * sent again here, up to this many times in all, a moment apart: a read changes nothing, and one lost
 * answer should not fail the step of twenty requests it belongs to (an SDN apply, a disk import's
 * checks), which its activity would then start over. Writes are not repeated here: whether one took
 * effect is for its caller to find out. A read that timed out is not either: it has waited its deadline.
 */
const READ_ATTEMPTS = 3;
const READ_RETRY_DELAY_MS = 100;

/** A login answer asking for a second factor (`NeedTFA: 1`, the ticket only a half one). */
const needsTfa = z.looseObject({ NeedTFA: pveBool.refine((v) => v) });

export function encodeParams(params: Params): string {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value as readonly string[]) out.append(key, item);
    else out.append(key, typeof value === 'boolean' ? flag(value) : String(value));
  }
  return out.toString();
}

export class ProxmoxTransport {
  readonly pool: Pool;
  readonly origin: string;
  readonly connections: number;
  private readonly auth: AuthHeaders;
  private readonly timeoutMs: number;

  /** The endpoint (credentials included) is only read here, never kept on the instance: inspecting a client shows no secret. */
  constructor(endpoint: ProxmoxEndpoint) {
    this.origin = `https://${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
    this.connections = endpoint.connections ?? 4;
    this.timeoutMs = endpoint.requestTimeoutMs ?? 60_000;
    let ca: string | undefined;
    if (endpoint.caFile) {
      try {
        ca = readFileSync(endpoint.caFile, 'utf8');
      } catch (err) {
        throw new ProxmoxTlsError(
          `Proxmox caFile ${endpoint.caFile} cannot be read: ${(err as Error).message}`,
          {},
          err,
        );
      }
    }
    this.pool = new Pool(this.origin, {
      connections: this.connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connect: { rejectUnauthorized: endpoint.validateCerts, ...(ca ? { ca } : {}) },
    });
    const { auth } = endpoint;
    this.auth =
      auth.kind === 'token'
        ? new TokenAuth(auth.tokenId, auth.secret)
        : new TicketAuth(
            (username, password) => this.login(username, password),
            auth.username,
            auth.password,
            auth.renewAfterMs,
          );
  }

  /** Tickets obtained so far (ticket auth only). */
  get ticketsIssued(): number {
    return this.auth instanceof TicketAuth ? this.auth.issued : 0;
  }

  /** Calls the API and returns `data`, parsed by `schema`; `attributes` receives PVE's result attributes (`total`). */
  async call<S extends z.ZodType>(
    method: Method,
    path: string,
    params: Params,
    schema: S,
    attributes?: ResultAttributes,
  ): Promise<z.output<S>> {
    const send = () => this.send(method, path, params, schema, true, attributes);
    let data: unknown;
    try {
      data = await (method === 'GET' ? this.read(send) : send());
    } catch (err) {
      // A ticket that expired under us: log in once more and repeat.
      if (err instanceof ProxmoxError && err.context.status === 401 && this.auth.invalidate()) data = await send();
      else throw err;
    }
    return data as z.output<S>;
  }

  private async read(send: () => Promise<unknown>): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (err) {
        const again = err instanceof ProxmoxTransientError && !err.context.timedOut && attempt < READ_ATTEMPTS;
        if (!again) throw err;
        await new Promise((r) => setTimeout(r, READ_RETRY_DELAY_MS * attempt));
      }
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** `POST /access/ticket`, its answer checked; an account that needs a second factor cannot be automated. */
  private async login(username: string, password: string): Promise<{ ticket: string; CSRFPreventionToken: string }> {
    const context = { method: 'POST', path: '/access/ticket' };
    const data = await this.send('POST', '/access/ticket', { username, password }, undefined, false);
    if (needsTfa.safeParse(data).success) {
      throw new ProxmoxError(
        `${username} has two-factor authentication: ferry cannot log in with it; use an API token, or a user without TFA for the password login`,
        'permission',
        context,
      );
    }
    const parsed = ticketSchema.safeParse(data);
    if (!parsed.success)
      throw new ProxmoxResponseError(
        `POST /access/ticket: unexpected login answer: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`).join('; ')}`,
        context,
      );
    return parsed.data;
  }

  private async send(
    method: Method,
    path: string,
    params: Params,
    schema: z.ZodType | undefined,
    authenticated: boolean,
    attributes?: ResultAttributes,
  ): Promise<unknown> {
    const write = method !== 'GET';
    const encoded = encodeParams(params);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(authenticated ? await this.auth.headers(write) : {}),
    };
    const inBody = method === 'POST' || method === 'PUT';
    if (inBody) headers['content-type'] = 'application/x-www-form-urlencoded';
    const requestPath = `${BASE}${path}${!inBody && encoded ? `?${encoded}` : ''}`;
    const context = { method, path };

    let statusCode: number;
    let statusText: string;
    let text: string;
    try {
      const response = await this.pool.request({
        method,
        path: requestPath,
        headers,
        body: inBody ? encoded : undefined,
      });
      statusCode = response.statusCode;
      statusText = response.statusText;
      text = await response.body.text();
    } catch (err) {
      throw this.networkError(err, context);
    }

    let body: { data?: unknown; errors?: Record<string, string>; message?: string; total?: unknown } | undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      if (statusCode === 200)
        throw new ProxmoxResponseError(`${method} ${path}: answer is not JSON: ${text.slice(0, 200)}`, {
          ...context,
          status: statusCode,
        });
    }
    if (statusCode !== 200) {
      // PVE puts the message in the reason phrase; libpve-http-server-perl >= 5.2.0 also in the body.
      const pveMessage = (body?.message ?? statusText ?? '').trim();
      throw errorFromResponse(statusCode, pveMessage, body?.errors ?? undefined, context);
    }
    if (!body || !('data' in body))
      throw new ProxmoxResponseError(`${method} ${path}: answer has no "data" member`, {
        ...context,
        status: statusCode,
      });
    if (attributes && body.total !== undefined && Number.isInteger(Number(body.total)))
      attributes.total = Number(body.total);
    if (!schema) return body.data;
    const parsed = schema.safeParse(body.data);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.map(String).join('.') || '(data)'}: ${i.message}`)
        .join('; ');
      throw new ProxmoxResponseError(`${method} ${path}: unexpected answer: ${issues}`, {
        ...context,
        status: statusCode,
      });
    }
    return parsed.data;
  }

  private networkError(err: unknown, context: { method: string; path: string }): ProxmoxError {
    const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
    const code = e.code ?? e.cause?.code ?? '';
    const detail = e.cause?.message ?? e.message ?? String(err);
    const tls = tlsProblem(err);
    if (tls) {
      return new ProxmoxTlsError(
        `${this.origin}: TLS: ${tls.problem} (${tls.code}: ${detail}); check host and port, set proxmox.caFile to the cluster's CA, or validateCerts: false for this endpoint`,
        context,
        err,
      );
    }
    const kind =
      err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError
        ? 'timed out'
        : 'failed';
    return new ProxmoxTransientError(
      `${context.method} ${context.path} ${kind}: ${code ? `${code} ` : ''}${detail} (${this.origin})`,
      { ...context, ...(kind === 'timed out' ? { timedOut: true } : {}) },
      err,
    );
  }
}
