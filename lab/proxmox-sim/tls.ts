import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SimulatorTls {
  /** The CA certificate clients trust (PROXMOX_CA_FILE / caFile). */
  caFile: string;
  cert: string;
  key: string;
}

/**
 * A fresh CA and a server certificate for 127.0.0.1/localhost signed by it, made with the openssl CLI at
 * every start and written under `dir`, so clients verify TLS against the CA file instead of turning
 * verification off.
 */
export async function createSimulatorTls(
  dir: string,
  hosts: string[] = ['127.0.0.1', 'localhost'],
): Promise<SimulatorTls> {
  mkdirSync(dir, { recursive: true });
  const f = (name: string) => path.join(dir, name);
  const openssl = async (args: string[]) => {
    try {
      await run('openssl', args);
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT')
        throw new Error('openssl is not installed; the Proxmox simulator needs it for its TLS certificate');
      throw new Error(`openssl ${args[0]} failed: ${e.stderr ?? e.message}`);
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '3650',
    '-subj',
    '/CN=ferry Proxmox simulator CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await openssl(['req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=pve1.lab']);
  const san = hosts.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
  writeFileSync(
    f('server.ext'),
    `basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${san}\n`,
  );
  await openssl([
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
    '825',
    '-extfile',
    f('server.ext'),
  ]);
  return {
    caFile: f('ca.pem'),
    cert: readFileSync(f('server.pem'), 'utf8'),
    key: readFileSync(f('server.key'), 'utf8'),
  };
}
