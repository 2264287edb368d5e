import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeLabCertificates } from '../../../lab/vcsim/tls';
import { methodCall } from '../../../src/vsphere/envelope';
import { SoapTransport } from '../../../src/vsphere/transport';

const SM = { type: 'SessionManager', value: 'SessionManager' };

function answer(method: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">' +
    `<soapenv:Body><${method}Response xmlns="urn:vim25"></${method}Response></soapenv:Body></soapenv:Envelope>`
  );
}

/**
 * A SOAP endpoint that hands out a new cookie on every answer (as vcsim does for requests without a
 * valid one), holds `Slow` until released, and records the cookie each request carried.
 */
describe('vSphere transport session cookie', () => {
  let dir: string;
  let server: Server;
  let transport: SoapTransport;
  const seen: Array<{ method: string; cookie?: string }> = [];
  let logins = 0;
  let releaseSlow: () => void = () => undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'ferry-cookie-'));
    const certs = await makeLabCertificates(dir);
    server = createServer({ cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) }, (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const method = /<(\w+) xmlns="urn:vim25"/.exec(body)?.[1] ?? '?';
        seen.push({ method, cookie: req.headers.cookie });
        const cookie = method === 'Login' ? `login-${++logins}` : `stray-${seen.length}`;
        const send = () => {
          res.writeHead(200, {
            'content-type': 'text/xml',
            'set-cookie': `vmware_soap_session=${cookie}; Path=/; HttpOnly`,
          });
          res.end(answer(method));
        };
        if (method === 'Slow') releaseSlow = send;
        else send();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    transport = new SoapTransport({
      host: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      validateCerts: true,
      caFile: certs.caFile,
    });
  }, 30_000);

  afterAll(async () => {
    await transport?.close();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string) => transport.call(method, methodCall(method, SM), SM);

  it('keeps the cookie of the latest Login, whatever answers arrive after it', async () => {
    await call('RetrieveServiceContent'); // a cookie on a non-Login answer is not the session
    await call('Login');
    const slow = call('Slow'); // sent under the first login
    await new Promise((resolve) => setTimeout(resolve, 200));
    transport.dropSession();
    await call('Login');
    releaseSlow(); // answers after the re-login, with a cookie of its own
    await slow;
    await call('Check');
    expect(seen.map((s) => [s.method, s.cookie])).toEqual([
      ['RetrieveServiceContent', undefined],
      ['Login', undefined],
      ['Slow', 'vmware_soap_session=login-1'],
      ['Login', undefined],
      ['Check', 'vmware_soap_session=login-2'],
    ]);
  });
});
