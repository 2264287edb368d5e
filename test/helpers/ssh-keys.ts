import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestKey {
  /** The private key file (no passphrase). */
  file: string;
  /** `ssh-ed25519 AAAA… comment`, as ferry.yaml lists it. */
  publicLine: string;
}

/** Fresh ed25519 keys made by the real ssh-keygen, in a folder removed by `remove()`. */
export function makeKeys(...names: string[]): { keys: Record<string, TestKey>; dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'ferry-keys-'));
  const keys: Record<string, TestKey> = {};
  for (const name of names) {
    const file = path.join(dir, name);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${name}@test`, '-f', file]);
    keys[name] = { file, publicLine: readFileSync(`${file}.pub`, 'utf8').trim() };
  }
  return { keys, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
