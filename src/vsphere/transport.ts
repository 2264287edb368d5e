import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { FerryError } from '../errors';
import { tlsProblem } from '../tls-errors';
import { soapEnvelope, type MoRef, type Xml } from './envelope';
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
  private cookie: string | undefined;
  private readonly pool: Pool;
  private readonly timeoutMs: number;

  constructor(readonly options: TransportOptions) {
    const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
    this.url = `https://${host}:${options.port}/sdk`;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    let ca: string | undefined;
    if (options.caFile) {
      try {
        ca = readFileSync(options.caFile, 'utf8');
      } catch (err) {
        throw new FerryError(`vsphere.caFile ${options.caFile} cannot be read: ${(err as Error).message}`, 'invalid');
      }
    }
    this.pool = new Pool(`https://${host}:${options.port}`, {
      connections: options.connections ?? 4,
      connect: { ca, rejectUnauthorized: options.validateCerts, timeout: 15_000 },
      keepAliveTimeout: 30_000,
    });
  }

  get tls(): 'verified' | 'not-verified' {
    return this.options.validateCerts ? 'verified' : 'not-verified';
  }

  dropSession(): void {
    this.cookie = undefined;
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
    if (this.cookie) headers.cookie = this.cookie;

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

    for (const c of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const pair = c.split(';', 1)[0]!.trim();
      if (pair.startsWith(`${SESSION_COOKIE}=`)) this.cookie = pair;
    }

    if (status !== 200 && status !== 500) {
      const category = status >= 500 || status === 429 ? 'transient' : status === 401 || status === 403 ? 'permission' : 'invalid';
      throw new VsphereHttpError(`vSphere ${method}: HTTP ${status} from ${this.url}: ${text.slice(0, 200).trim()}`, category, {
        details: { status, method },
      });
    }
    let envelope: XmlElement;
    try {
      envelope = parseXml(text);
    } catch (err) {
      const what = err instanceof XmlSyntaxError ? err.message : String(err);
      throw new VsphereResponseError(`vSphere ${method}: the answer (HTTP ${status}, ${text.length} bytes) is ${what}`, 'transient', {
        details: { method },
      });
    }
    const responseBody = envelope.name === 'Envelope' ? child(envelope, 'Body') : undefined;
    const first = responseBody?.children[0];
    if (!first) throw new VsphereResponseError(`vSphere ${method}: the answer has no SOAP body`, 'invalid', { details: { method } });
    if (first.name === 'Fault') throw faultFromSoap(first, context);
    if (status !== 200) {
      throw new VsphereResponseError(`vSphere ${method}: HTTP ${status} without a SOAP fault`, 'transient', { details: { method } });
    }
    if (first.name !== `${method}Response`) {
      throw new VsphereResponseError(`vSphere ${method}: expected ${method}Response, got ${first.name}`, 'invalid', { details: { method } });
    }
    return first;
  }

  private connectionError(err: unknown, method: string): FerryError {
    const code = errorCode(err);
    const message = deepestMessage(err);
    const tls = tlsProblem(err);
    if (tls) {
      const hint = this.options.caFile
        ? `it is not signed by the CA in ${this.options.caFile}`
        : 'set vsphere.caFile (VMWARE_CA_FILE) to the CA that signed it, or validateCerts: false to skip verification';
      return new VsphereConnectionError(`TLS: the certificate of ${this.url} is not trusted (${tls.code}: ${message}); ${hint}`, 'invalid', {
        cause: err,
        details: { code: tls.code, method, tls: 'failed' },
      });
    }
    return new VsphereConnectionError(`cannot reach vSphere at ${this.url} (${method}): ${code ? `${code}: ` : ''}${message}`, 'transient', {
      cause: err,
      details: { code, method },
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
