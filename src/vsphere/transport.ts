import type { Pool } from 'undici';
import type { FerryError } from '../errors';
import { tlsProblem } from '../tls-errors';
import { soapEnvelope, type MoRef, type Xml } from './envelope';
import { vcenterOrigin, vcenterPool } from './https-pool';
import { faultFromSoap, VsphereConnectionError, VsphereHttpError, VsphereResponseError } from './faults';
import { child, parseXml, XmlSyntaxError, type XmlElement } from './xml';

export interface TransportOptions {
  host: string;
  port: number;
  /** Verify the server certificate (default true). */
  validateCerts: boolean;
  /** PEM file with the CA (or self-signed certificate) to trust. */
  caFile?: string;
  /** Per request: time to the answer's headers and between body chunks. */
  timeoutMs?: number;
  /** Parallel keep-alive connections. */
  connections?: number;
}

/** What the transport has done so far: the benchmark reads these. */
export interface TransportStats {
  roundTrips: number;
  bytesSent: number;
  bytesReceived: number;
}

export const SESSION_COOKIE = 'vmware_soap_session';

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
  }
  return undefined;
}

function deepestMessage(err: unknown): string {
  let message = err instanceof Error ? err.message : String(err);
  for (let e: unknown = err; e instanceof Error; e = e.cause) message = e.message || message;
  return message;
}

/**
 * vim25 over HTTPS: one keep-alive connection pool to `https://host:port/sdk`, the session cookie, the
 * SOAPAction version, and SOAP faults turned into typed errors. Counts round trips and bytes.
 */
export class SoapTransport {
  readonly url: string;
  readonly stats: TransportStats = { roundTrips: 0, bytesSent: 0, bytesReceived: 0 };
  /** `urn:vim25/<version>`; set from About.apiVersion once known. */
  apiVersion = '6.5';
  /** The session cookie is a credential: an ES private field, so util.inspect never shows it. */
  #cookie: string | undefined;
  /** Increases with every dropSession: an answer to a request sent before it must not set the cookie. */
  private cookieGeneration = 0;
  private readonly pool: Pool;
  private readonly timeoutMs: number;

  constructor(readonly options: TransportOptions) {
    this.url = `${vcenterOrigin(options.host, options.port)}/sdk`;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.pool = vcenterPool({ ...options, connections: options.connections ?? 4 });
  }

  get tls(): 'verified' | 'not-verified' {
    return this.options.validateCerts ? 'verified' : 'not-verified';
  }

  dropSession(): void {
    this.#cookie = undefined;
    this.cookieGeneration++;
  }

  /**
   * Calls `method` and returns its response element (`<MethodResponse>`), or throws: VsphereFault for a
   * SOAP fault, VsphereConnectionError / VsphereHttpError / VsphereResponseError otherwise.
   */
  async call(method: string, body: Xml, self: MoRef): Promise<XmlElement> {
    const context = { method, object: `${self.type}:${self.value}` };
    const payload = Buffer.from(soapEnvelope(body), 'utf8');
    const headers: Record<string, string> = {
      'content-type': 'text/xml; charset=utf-8',
      soapaction: `urn:vim25/${this.apiVersion}`,
      'user-agent': 'ferry',
    };
    if (this.#cookie) headers.cookie = this.#cookie;
    const generation = this.cookieGeneration;

    let status: number;
    let text: string;
    let setCookie: string | string[] | undefined;
    try {
      const response = await this.pool.request({
        path: '/sdk',
        method: 'POST',
        headers,
        body: payload,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      const bytes = Buffer.from(await response.body.arrayBuffer());
      this.stats.roundTrips++;
      this.stats.bytesSent += payload.length;
      this.stats.bytesReceived += bytes.length;
      status = response.statusCode;
      text = bytes.toString('utf8');
      setCookie = response.headers['set-cookie'];
    } catch (err) {
      throw this.connectionError(err, method);
    }

    // The session is the one Login opened: a cookie on any other answer (vcsim hands unauthenticated
    // ones out), or on a Login answer overtaken by a later re-login, would replace it with a dead one.
    if (method === 'Login' && status === 200 && generation === this.cookieGeneration) {
      for (const c of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
        const pair = c.split(';', 1)[0]!.trim();
        if (pair.startsWith(`${SESSION_COOKIE}=`)) this.#cookie = pair;
      }
    }

    if (status !== 200 && status !== 500) {
      const category =
        status >= 500 || status === 429 ? 'transient' : status === 401 || status === 403 ? 'permission' : 'invalid';
      throw new VsphereHttpError(
        `vSphere ${method}: HTTP ${status} from ${this.url}: ${text.slice(0, 200).trim()}`,
        category,
        {
          details: { status, method },
        },
      );
    }
    let envelope: XmlElement;
    try {
      envelope = parseXml(text);
    } catch (err) {
      const what = err instanceof XmlSyntaxError ? err.message : String(err);
      throw new VsphereResponseError(
        `vSphere ${method}: the answer (HTTP ${status}, ${text.length} bytes) is ${what}`,
        'transient',
        {
          details: { method },
        },
      );
    }
    const responseBody = envelope.name === 'Envelope' ? child(envelope, 'Body') : undefined;
    const first = responseBody?.children[0];
    if (!first)
      throw new VsphereResponseError(`vSphere ${method}: the answer has no SOAP body`, 'invalid', {
        details: { method },
      });
    if (first.name === 'Fault') throw faultFromSoap(first, context);
    if (status !== 200) {
      throw new VsphereResponseError(`vSphere ${method}: HTTP ${status} without a SOAP fault`, 'transient', {
        details: { method },
      });
    }
    if (first.name !== `${method}Response`) {
      throw new VsphereResponseError(`vSphere ${method}: expected ${method}Response, got ${first.name}`, 'invalid', {
        details: { method },
      });
    }
    return first;
  }

  private connectionError(err: unknown, method: string): FerryError {
    const code = errorCode(err);
    const message = deepestMessage(err);
    const tls = tlsProblem(err);
    if (tls) {
      const hint = this.options.caFile
        ? `check host and port, and that the CA in ${this.options.caFile} signed it`
        : 'check host and port, set vsphere.caFile (VMWARE_CA_FILE) to the CA that signed it, or validateCerts: false to skip verification';
      return new VsphereConnectionError(
        `TLS: ${this.url}: ${tls.problem} (${tls.code}: ${message}); ${hint}`,
        'invalid',
        {
          cause: err,
          details: { code: tls.code, method, tls: 'failed' },
        },
      );
    }
    return new VsphereConnectionError(
      `cannot reach vSphere at ${this.url} (${method}): ${code ? `${code}: ` : ''}${message}`,
      'transient',
      {
        cause: err,
        details: { code, method },
      },
    );
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
