import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  lstatSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { hostKeys, matchLine, removeFromContent, removeKnownHosts } from '../../src/known-hosts/known-hosts';
import { toolPath } from '../../lab/tools';

const sshKeygen = toolPath('ssh-keygen');
let dir: string;
let keys: string[];

/** Real public keys (the type and key fields of a known_hosts line), made by ssh-keygen. */
function publicKeys(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const file = path.join(dir, `key${i}`);
    execFileSync(sshKeygen, ['-q', '-t', 'ed25519', '-N', '', '-C', '', '-f', file]);
    return readFileSync(`${file}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  });
}

/** Lines hashed by ssh-keygen -H itself, so the hashed form is OpenSSH's, not ours. */
function hashedLines(lines: string[]): string[] {
  const file = path.join(dir, `to-hash-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, lines.join('\n') + '\n');
  execFileSync(sshKeygen, ['-H', '-f', file], { stdio: 'ignore' });
  return readFileSync(file, 'utf8').trim().split('\n');
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ferry-known-hosts-'));
  keys = publicKeys(4);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('known_hosts cleanup', () => {
  it('builds the lookup strings ssh uses for each port', () => {
    expect(hostKeys(['VM1.lab.example', '192.0.2.10', '[2001:db8::5]'], [22, 2222])).toEqual([
      'vm1.lab.example',
      '[vm1.lab.example]:2222',
      '192.0.2.10',
      '[192.0.2.10]:2222',
      '2001:db8::5',
      '[2001:db8::5]:2222',
    ]);
    expect(() => hostKeys(['*.lab'])).toThrow('known_hosts: "*.lab" is not a host name or address');
  });

  it('removes what `ssh-keygen -R` removes, for every name, address and port of a host', async () => {
    const [k0, k1, k2, k3] = keys as [string, string, string, string];
    const hashed = hashedLines([
      `vm1.lab.example ${k1}`,
      `192.0.2.10 ${k1}`,
      `[vm1.lab.example]:2222 ${k2}`,
      `other.lab.example ${k3}`,
    ]);
    const content = [
      '# managed by hand',
      `other.lab.example ${k0}`,
      `vm1.lab.example ${k0}`,
      `VM1.LAB.EXAMPLE,192.0.2.10 ${k1}`,
      '',
      `[vm1.lab.example]:2222 ${k2}`,
      `[vm1.lab.example]:2200 ${k2}`,
      `192.0.2.100 ${k3}`,
      `vm10.lab.example ${k3} comment with vm1.lab.example`,
      ...hashed,
      `@cert-authority vm1.lab.example ${k3}`,
      `@revoked 192.0.2.10 ${k3}`,
      '',
    ].join('\n');
    const ours = path.join(dir, 'ours');
    const theirs = path.join(dir, 'theirs');
    writeFileSync(ours, content);
    writeFileSync(theirs, content);

    const result = await removeKnownHosts(ours, ['vm1.lab.example', '192.0.2.10'], [22, 2222]);
    for (const host of hostKeys(['vm1.lab.example', '192.0.2.10'], [22, 2222])) {
      execFileSync(sshKeygen, ['-R', host, '-f', theirs], { stdio: 'ignore' });
    }

    expect(readFileSync(ours, 'utf8')).toBe(readFileSync(theirs, 'utf8'));
    const after = readFileSync(ours, 'utf8');
    expect(after).toContain(`other.lab.example ${k0}`);
    expect(after).toContain(`[vm1.lab.example]:2200 ${k2}`);
    expect(after).toContain(`vm10.lab.example ${k3}`);
    expect(after).toContain(hashed[3]);
    expect(after).toContain('@cert-authority vm1.lab.example');
    expect(after).not.toMatch(/^vm1\.lab\.example /m);
    expect(result.removed.map((r) => r.host)).toEqual([
      'vm1.lab.example',
      'vm1.lab.example',
      '[vm1.lab.example]:2222',
      'vm1.lab.example',
      '192.0.2.10',
      '[vm1.lab.example]:2222',
    ]);
    expect(result.removed.map((r) => r.line)).toEqual([3, 4, 6, 10, 11, 12]);
  });

  it('keeps every other byte: CRLF endings, odd bytes, no final newline', () => {
    const [k0] = keys as [string];
    const content = `a.example ${k0}\r\nvm1.example ${k0}\r\n# caf\xe9 \xff\r\n  \t\r\nb.example ${k0}`;
    const { content: after, removed } = removeFromContent(content, hostKeys(['vm1.example']));
    expect(after).toBe(`a.example ${k0}\r\n# caf\xe9 \xff\r\n  \t\r\nb.example ${k0}`);
    expect(removed).toEqual([{ line: 2, host: 'vm1.example' }]);
    expect(removeFromContent(`x ${k0}\nvm1.example ${k0}`, ['vm1.example']).content).toBe(`x ${k0}\n`);
  });

  it('never removes wildcard or negated patterns, which name other hosts too', () => {
    const [k0] = keys as [string];
    expect(matchLine(`*.lab.example ${k0}`, ['vm1.lab.example'])).toBeUndefined();
    expect(matchLine(`vm1.lab.example,vm?.lab.example ${k0}`, ['vm1.lab.example'])).toBeUndefined();
    expect(matchLine(`*.lab.example,!vm1.lab.example ${k0}`, ['vm1.lab.example'])).toBeUndefined();
    expect(matchLine(`vm1.lab.example,vm2.lab.example ${k0}`, ['vm2.lab.example'])).toBe('vm2.lab.example');
  });

  it('replaces the file atomically, keeping its mode and a symlink in front of it', async () => {
    const [k0] = keys as [string];
    const real = path.join(dir, 'real_known_hosts');
    const link = path.join(dir, 'link_known_hosts');
    writeFileSync(real, `vm1.example ${k0}\nkeep.example ${k0}\n`);
    chmodSync(real, 0o640);
    symlinkSync(real, link);
    const before = statSync(real).ino;

    const result = await removeKnownHosts(link, ['vm1.example']);
    expect(result.removed).toHaveLength(1);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe(`keep.example ${k0}\n`);
    expect(statSync(real).mode & 0o777).toBe(0o640);
    expect(statSync(real).ino).not.toBe(before); // a new file renamed into place, not rewritten in place
    expect(readdirSync(dir).filter((f) => f.includes('.ferry-'))).toEqual([]);
  });

  it('leaves a file without the host untouched, and a missing file is nothing to do', async () => {
    const [k0] = keys as [string];
    const file = path.join(dir, 'untouched');
    writeFileSync(file, `keep.example ${k0}\n`);
    const before = statSync(file).ino;
    expect((await removeKnownHosts(file, ['vm1.example'])).removed).toEqual([]);
    expect(statSync(file).ino).toBe(before);
    expect(await removeKnownHosts(path.join(dir, 'missing'), ['vm1.example'])).toEqual({
      file: path.join(dir, 'missing'),
      removed: [],
    });
  });

  it('removes different hosts removed at the same time, in one process and across processes', async () => {
    const [k0] = keys as [string];
    const hosts = Array.from({ length: 8 }, (_, i) => `vm${i}.lab.example`);
    const file = path.join(dir, 'concurrent');
    writeFileSync(file, [...hosts, 'keep.lab.example'].map((h) => `${h} ${k0}\n`).join(''));

    const results = await Promise.all(hosts.slice(0, 4).map((h) => removeKnownHosts(file, [h])));
    expect(results.map((r) => r.removed.map((x) => x.host))).toEqual(hosts.slice(0, 4).map((h) => [h]));

    // Other processes (teardown activities in several workers) share only the lock file.
    const script = (host: string) =>
      `require(${JSON.stringify(path.resolve('src/known-hosts/known-hosts.ts'))}).removeKnownHosts(${JSON.stringify(file)}, [${JSON.stringify(host)}]).catch((e) => { console.error(e); process.exit(1); })`;
    const children = hosts.slice(4).map((h) =>
      spawn(process.execPath, [path.resolve('node_modules/.bin/tsx'), '-e', script(h)], {
        stdio: ['ignore', 'ignore', 'inherit'],
      }),
    );
    const codes = await Promise.all(children.map((c) => new Promise((resolve) => c.on('exit', resolve))));
    expect(codes).toEqual([0, 0, 0, 0]);
    expect(readFileSync(file, 'utf8')).toBe(`keep.lab.example ${k0}\n`);
    expect(readdirSync(dir).filter((f) => f.startsWith('concurrent.') || f.startsWith('.concurrent'))).toEqual([]);
  }, 60_000);

  it('waits for a lock another live process holds, and takes one a dead process left behind', async () => {
    const [k0] = keys as [string];
    const file = path.join(dir, 'locked');
    writeFileSync(file, `vm1.example ${k0}\nkeep.example ${k0}\n`);
    const holder = spawn('sleep', ['30']);
    writeFileSync(`${file}.ferry.lock`, `${holder.pid} ${hostname()}\n`);
    try {
      let settled = false;
      const removal = removeKnownHosts(file, ['vm1.example']).finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      expect(readFileSync(file, 'utf8')).toContain('vm1.example');
      rmSync(`${file}.ferry.lock`); // the holder is done
      expect((await removal).removed).toHaveLength(1);
    } finally {
      holder.kill();
    }

    writeFileSync(file, `vm2.example ${k0}\nkeep.example ${k0}\n`);
    const gone = spawn('true');
    await new Promise((resolve) => gone.on('exit', resolve));
    writeFileSync(`${file}.ferry.lock`, `${gone.pid} ${hostname()}\n`);
    expect((await removeKnownHosts(file, ['vm2.example'])).removed).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toBe(`keep.example ${k0}\n`);
    expect(existsSync(`${file}.ferry.lock`)).toBe(false);
  });
});
