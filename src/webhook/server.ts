import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER } from '../netbox/webhook-signature';
import type { Reply } from './delivery';

/** The path NetBox posts to (the webhook's payload URL ends in it, unless a proxy in front rewrites it). */
export const WEBHOOK_PATH = '/netbox/webhook';
/** A NetBox payload is a few KiB (the object and two snapshots); anything far larger is not one. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface WebhookServerOptions {
  host: string;
  port: number;
  /** Serve HTTPS with this certificate and key (PEM); plain HTTP without. */
  tls?: { cert: Buffer; key: Buffer };
  /** One delivery: the raw body as received and the signature header. */
  handle(body: Buffer, signature: string | string[] | undefined): Promise<Reply>;
  log(line: string): void;
}

export interface WebhookServer {
  /** Where it listens, e.g. `http://127.0.0.1:8787/netbox/webhook` (the port as bound, for port 0). */
  url: string;
  close(): Promise<void>;
}

/** Listens for NetBox's deliveries: POST to WEBHOOK_PATH only, the body read whole and kept as bytes. */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    route(req, options).then(
      (reply) => send(res, reply),
      (err: unknown) => {
        options.log(`netbox webhook: failed to answer: ${(err as Error).message}`);
        send(res, { status: 500, body: { error: (err as Error).message } });
      },
    );
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, onRequest) : createHttpServer(onRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${port}${WEBHOOK_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function route(req: IncomingMessage, options: WebhookServerOptions): Promise<Reply> {
  const path = new URL(req.url ?? '/', 'http://receiver').pathname;
  if (path !== WEBHOOK_PATH) return { status: 404, body: { error: `NetBox's webhook posts to ${WEBHOOK_PATH}` } };
  if (req.method !== 'POST') return { status: 405, body: { error: `${req.method} ${WEBHOOK_PATH}: only POST` } };
  const body = await readBody(req);
  if (body === 'too-large')
    return { status: 413, body: { error: `body over ${MAX_BODY_BYTES} bytes: not a NetBox webhook payload` } };
  return options.handle(body, req.headers[SIGNATURE_HEADER]);
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, reply: Reply): void {
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(reply.status === 405 ? { allow: 'POST' } : {}),
  });
  res.end(text);
}
