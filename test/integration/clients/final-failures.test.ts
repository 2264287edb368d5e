import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createSimulatorTls, type SimulatorTls } from '../../../lab/proxmox-sim/tls';
import { toActivityFailure } from '../../../activities/failures';
import { FerryError } from '../../../src/errors';
import { ProxmoxClient } from '../../../src/proxmox';
import { NetboxClient } from '../../../src/netbox/client';
import { NetboxHttp } from '../../../src/netbox/http';
import { VsphereClient } from '../../../src/vsphere';
import type { VsphereConfig } from '../../../src/config';

/**
 * Every HTTPS client against one small server that answers as told: an untrusted certificate, refused
 * credentials, a missing privilege, an answer of the wrong shape. Each must leave an activity as a
 * non-retryable failure that says what to fix, never as something Temporal retries for its deadline.
 */
type Answer = { status: number; type?: string; body: string };
let answer: Answer = { status: 200, body: '{}' };
let server: Server;
let tls: SimulatorTls;
let dir: string;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ferry-final-'));
  tls = await createSimulatorTls(dir);
  server = createServer({ cert: tls.cert, key: tls.key }, (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const soapFault = (type: string, text: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body><soapenv:Fault><faultcode>ServerFaultCode</faultcode><faultstring>${text}</faultstring><detail><${type}Fault xmlns="urn:vim25" xsi:type="${type}"></${type}Fault></detail></soapenv:Fault></soapenv:Body></soapenv:Envelope>`;
const soapOther = `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><SomethingElseResponse xmlns="urn:vim25"></SomethingElseResponse></soapenv:Body></soapenv:Envelope>`;

interface ClientCase {
  client: string;
  /** One read through the client, trusting the test CA or not. */
  read: (trusted: boolean) => Promise<unknown>;
  answers: Record<'auth' | 'permission' | 'schema', Answer>;
}

const vsphereConfig = (trusted: boolean): VsphereConfig => ({
  host: '127.0.0.1',
  port,
  user: 'ferry@vsphere.local',
  password: 'pw',
  validateCerts: true,
  ...(trusted ? { caFile: tls.caFile } : {}),
  discovery: { folders: [], clusters: [], pageSize: 500 },
});

const CASES: ClientCase[] = [
  {
    client: 'Proxmox',
    read: (trusted) =>
      new ProxmoxClient({
        host: '127.0.0.1',
        port,
        validateCerts: true,
        ...(trusted ? { caFile: tls.caFile } : {}),
        auth: { kind: 'token', tokenId: 'ferry@pve!t', secret: 's' },
      }).vms.usedVmids(),
    answers: {
      auth: { status: 401, body: '{"data":null}' },
      permission: { status: 403, body: '{"data":null,"message":"Permission check failed (/vms, VM.Audit)"}' },
      schema: { status: 200, body: '{"data":"not a list"}' },
    },
  },
  {
    client: 'NetBox',
    read: (trusted) =>
      new NetboxClient(
        new NetboxHttp({
          url: `https://127.0.0.1:${port}`,
          token: 'nbt_a.b',
          validateCerts: true,
          ...(trusted ? { caFile: tls.caFile } : {}),
        }),
      ).usedVmids({ min: 9000, max: 9100 }),
    answers: {
      auth: { status: 401, body: '{"detail":"Invalid v2 token"}' },
      permission: { status: 403, body: '{"detail":"You do not have permission to perform this action."}' },
      schema: { status: 200, body: '{"results":"nope"}' },
    },
  },
  {
    client: 'vSphere (vim25)',
    read: (trusted) => new VsphereClient(vsphereConfig(trusted)).about(),
    answers: {
      auth: {
        status: 500,
        type: 'text/xml',
        body: soapFault('InvalidLogin', 'Cannot complete login due to an incorrect user name or password.'),
      },
      permission: {
        status: 500,
        type: 'text/xml',
        body: soapFault('NoPermission', 'Permission to perform this operation was denied.'),
      },
      schema: { status: 200, type: 'text/xml', body: soapOther },
    },
  },
  {
    client: 'vSphere (tags)',
    read: (trusted) => new VsphereClient(vsphereConfig(trusted)).vmsTagged('ferry/wave1'),
    answers: {
      auth: { status: 401, body: '{"type":"com.vmware.vapi.std.errors.unauthenticated"}' },
      permission: { status: 403, body: '{"type":"com.vmware.vapi.std.errors.unauthorized"}' },
      schema: { status: 200, body: '{"value":42}' },
    },
  },
];

async function failureOf(read: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FerryError);
  const failure = toActivityFailure(err);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  return failure as ApplicationFailure;
}

describe.each(CASES)('$client: failures that retrying cannot fix are non-retryable', ({ read, answers }) => {
  it('an untrusted certificate: TLS, naming caFile', async () => {
    answer = { status: 200, body: '{}' };
    const failure = await failureOf(read(false));
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/TLS/);
    expect(failure.message).toMatch(/caFile/);
  });

  it.each(['auth', 'permission', 'schema'] as const)('%s', async (kind) => {
    answer = answers[kind];
    const failure = await failureOf(read(true));
    expect({ kind, nonRetryable: failure.nonRetryable, message: failure.message }).toMatchObject({
      kind,
      nonRetryable: true,
    });
  });
});

describe('a wrapper keeps a final cause final', () => {
  it('a transient FerryError around a TLS or permission error is not retryable', () => {
    const tlsCause = Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(new FerryError('could not read', 'transient', { cause: tlsCause }).retryable).toBe(false);
    expect(
      new FerryError('could not read', 'transient', { cause: new FerryError('HTTP 403', 'permission') }).retryable,
    ).toBe(false);
    expect(
      new FerryError('could not read', 'transient', {
        cause: ApplicationFailure.create({ message: 'x', nonRetryable: true }),
      }).retryable,
    ).toBe(false);
    expect(
      new FerryError('could not read', 'transient', { cause: new FerryError('HTTP 503', 'transient') }).retryable,
    ).toBe(true);
  });

  it('a TLS error no client classified leaves an activity non-retryable', () => {
    const failure = toActivityFailure(
      Object.assign(new Error('unable to verify the first certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }),
    );
    expect(failure).toMatchObject({ type: 'TlsError', nonRetryable: true });
  });
});
