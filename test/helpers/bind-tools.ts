import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BindKey, BindServer } from '../../lab/bind-server';
import { toolPath } from '../../lab/tools';

const run = promisify(execFile);

/** What BIND's own `dig` sees: the record values, one per line, without trailing dots. */
export async function dig(bind: BindServer, name: string, type: string): Promise<string[]> {
  const args = ['@127.0.0.1', '-p', String(bind.port), '+short', '+norecurse', '+time=2', '+tries=1'];
  const { stdout } = await run(toolPath('dig'), type === 'PTR-of' ? [...args, '-x', name] : [...args, name, type]);
  return stdout
    .split('\n')
    .map((l) => l.trim().replace(/\.$/, ''))
    .filter(Boolean)
    .sort();
}

/** Runs BIND's `nsupdate` with the given commands (the `server` line is added), signed with `key`. */
export async function nsupdate(bind: BindServer, key: BindKey, commands: string[]): Promise<void> {
  const script = [`server 127.0.0.1 ${bind.port}`, ...commands, 'send', ''].join('\n');
  // The key goes in a file (not on the command line, where `ps` would show it).
  const keyFile = path.join(bind.dir, `${key.name}.nsupdate.key`);
  writeFileSync(keyFile, `key "${key.name}" { algorithm ${key.algorithm}; secret "${key.secret}"; };\n`, {
    mode: 0o600,
  });
  const child = execFile(toolPath('nsupdate'), ['-k', keyFile]);
  const done = new Promise<void>((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    // 'close', not 'exit': its stderr is read to the end first.
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`nsupdate exited ${code}: ${stderr}`))));
  });
  child.stdin!.end(script);
  await done;
}
