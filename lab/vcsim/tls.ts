import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LabCertificates {
  /** The CA certificate clients trust (`vsphere.caFile`). */
  caFile: string;
  certFile: string;
  keyFile: string;
}

/**
 * A throw-away CA and a server certificate it signed for 127.0.0.1/localhost, made with openssl. vcsim
 * serves the server certificate; ferry trusts the CA by file, so TLS stays verified in tests and the lab.
 */
export async function makeLabCertificates(dir: string): Promise<LabCertificates> {
  mkdirSync(dir, { recursive: true });
  const f = (name: string) => path.join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '30',
    '-subj',
    '/CN=ferry lab CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await run('openssl', ['req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1']);
  writeFileSync(
    f('server.ext'),
    'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('server.pem'),
    '-days',
    '30',
    '-extfile',
    f('server.ext'),
  ]);
  return { caFile: f('ca.pem'), certFile: f('server.pem'), keyFile: f('server.key') };
}
