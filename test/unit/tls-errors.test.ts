import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createTcpServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, createServer as createTlsServer } from 'node:tls';
import { request } from 'undici';
import { createSimulatorTls, type SimulatorTls } from '../../lab/proxmox-sim/tls';
import { tlsProblem } from '../../src/tls-errors';

/** Real handshakes against local servers: the codes Node really produces are the ones classified. */
function handshake(port: number, options: { ca?: string; servername?: string } = {}): Promise<unknown> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ...options }, () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.on('error', resolve);
  });
}

const sockets = new Set<{ destroy(): void }>();
const track = (server: Server) => server.on('connection', (s) => sockets.add(s));
const listen = (server: Server) =>
  new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));

describe('tlsProblem', () => {
  let dir: string;
  let tls: SimulatorTls;
  let tlsServer: Server;
  let plainServer: Server;
  let tlsPort: number;
  let plainPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ferry-tls-'));
    tls = await createSimulatorTls(dir);
    tlsServer = createTlsServer({ cert: tls.cert, key: tls.key }, (s) => s.end());
    plainServer = createTcpServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    [tlsServer, plainServer].forEach(track);
    [tlsPort, plainPort] = await Promise.all([listen(tlsServer), listen(plainServer)]);
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all([tlsServer, plainServer].map((s) => new Promise((r) => s.close(r))));
    rmSync(dir, { recursive: true, force: true });
  });

  it('classifies an untrusted certificate', async () => {
    expect(tlsProblem(await handshake(tlsPort))).toEqual({
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      problem: expect.stringMatching(/not trusted/),
    });
  });

  it('classifies a certificate for another name', async () => {
    const err = await handshake(tlsPort, { ca: readFileSync(tls.caFile, 'utf8'), servername: 'elsewhere.example' });
    expect(tlsProblem(err)).toEqual({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      problem: expect.stringMatching(/another host name/),
    });
  });

  it('classifies TLS spoken to a plain port', async () => {
    expect(tlsProblem(await handshake(plainPort))?.problem).toMatch(/plain port/);
  });

  it('finds the code in the cause chain, as undici wraps it', async () => {
    const err = await request(`https://127.0.0.1:${tlsPort}/`).catch((e: unknown) => e);
    expect(tlsProblem(err)?.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(
      tlsProblem(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' }) }))?.problem,
    ).toMatch(/expired/);
  });

  it('leaves other failures alone (they are transient)', async () => {
    const refused = await request(`https://127.0.0.1:1/`).catch((e: unknown) => e);
    expect(tlsProblem(refused)).toBeUndefined();
    expect(tlsProblem(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(tlsProblem({ code: 'toString' })).toBeUndefined();
    expect(tlsProblem(undefined)).toBeUndefined();
  });

  it.each([
    'CERT_NOT_YET_VALID',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'SELF_SIGNED_CERT_IN_CHAIN',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'CERT_SIGNATURE_FAILURE',
    'INVALID_CA',
    'CERT_REVOKED',
    'HOSTNAME_MISMATCH',
  ])('knows %s', (code) => {
    expect(tlsProblem({ code })?.code).toBe(code);
  });
});
