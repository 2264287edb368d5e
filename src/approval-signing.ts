import { spawn } from 'node:child_process';
import { APPROVAL_NAMESPACE } from './domain/approvals';
import { FerryError } from './errors';

/**
 * Signs an approval statement with the approver's own SSH key through `ssh-keygen -Y sign` (a key
 * file, or its .pub when ssh-agent holds the key; a passphrase is asked on the terminal). The private
 * key stays with ssh-keygen: ferry sees only the armored signature it prints.
 */
export async function sshSign(keyFile: string, statement: string, sshKeygen = 'ssh-keygen'): Promise<string> {
  const child = spawn(sshKeygen, ['-q', '-Y', 'sign', '-f', keyFile, '-n', APPROVAL_NAMESPACE], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  child.stdin.end(statement);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  }).catch((e: NodeJS.ErrnoException) => {
    throw new FerryError(
      e.code === 'ENOENT' ? `${sshKeygen} not found: install openssh-client to sign approvals` : e.message,
      'invalid',
    );
  });
  const signature = Buffer.concat(out).toString('utf8').trim();
  if (code !== 0 || !signature.startsWith('-----BEGIN SSH SIGNATURE-----')) {
    throw new FerryError(
      `ssh-keygen could not sign with ${keyFile}: ${Buffer.concat(err).toString('utf8').trim() || `exit ${String(code)}`}`,
      'invalid',
    );
  }
  return signature;
}
