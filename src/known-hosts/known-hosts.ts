import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FerryError } from '../errors';
import { withFileLock } from './file-lock';

/**
 * Removal of a host's entries from an OpenSSH known_hosts file, as `ssh-keygen -R` does, for every
 * name and address of a VM at once:
 *
 * - plain entries (`host`, `[host]:port`, comma lists of them) and hashed ones (`|1|salt|hash`,
 *   HMAC-SHA1 of the same strings) are matched; a matching line goes as a whole, as with ssh-keygen;
 * - `@cert-authority` and `@revoked` lines stay (ssh-keygen keeps them too);
 * - unlike ssh-keygen, wildcard (`*`, `?`) and negated (`!`) patterns never match: such a line names
 *   other hosts too, and ferry removes only what names this host exactly;
 * - every other byte of the file stays as it was (line endings, comments, a missing final newline,
 *   bytes that are not UTF-8: the file is read and written byte for byte);
 * - the new content is written to a temporary file beside it and renamed over it, so a reader sees
 *   either the old file or the new one. Nothing is written when nothing matches;
 * - rewrites hold a lock (`<file>.ferry.lock`, see file-lock.ts), so concurrent teardowns do not undo
 *   each other's removals, and the directory is synced after the rename.
 */
export interface KnownHostsRemoval {
  file: string;
  /** 1-based line numbers of the removed lines, with the host string that matched each. */
  removed: Array<{ line: number; host: string }>;
}

/** The strings ssh looks up for `host` on `port`: `host` on 22, `[host]:port` elsewhere; lower case. */
export function hostKeys(hosts: readonly string[], ports: readonly number[] = [22]): string[] {
  const keys = new Set<string>();
  for (const raw of hosts) {
    const host = raw
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1');
    if (host === '' || /[\s,*?!]/.test(host))
      throw new FerryError(`known_hosts: "${raw}" is not a host name or address`, 'invalid');
    for (const port of ports) keys.add(port === 22 ? host : `[${host}]:${port}`);
  }
  return [...keys];
}

/** The host string of a known_hosts line that names one of `keys`, if any. */
export function matchLine(line: string, keys: readonly string[]): string | undefined {
  const fields = line.trim().split(/\s+/);
  if (fields[0] === undefined || fields[0] === '' || fields[0].startsWith('#')) return undefined;
  if (fields[0].startsWith('@')) return undefined; // @cert-authority / @revoked: kept, as ssh-keygen -R does
  const names = fields[0];
  if (names.startsWith('|1|')) return keys.find((key) => hashedMatches(names, key));
  const patterns = names.toLowerCase().split(',');
  if (patterns.some((p) => /[*?]/.test(p))) return undefined;
  if (patterns.some((p) => p.startsWith('!') && keys.includes(p.slice(1)))) return undefined;
  return keys.find((key) => patterns.includes(key));
}

function hashedMatches(entry: string, key: string): boolean {
  const [, , salt, hash] = entry.split('|');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = createHmac('sha1', Buffer.from(salt, 'base64')).update(key).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Content with the lines naming any of `keys` removed, and which lines those were. */
export function removeFromContent(
  content: string,
  keys: readonly string[],
): { content: string; removed: KnownHostsRemoval['removed'] } {
  const lines = content.split(/(?<=\n)/);
  const removed: KnownHostsRemoval['removed'] = [];
  const kept = lines.filter((line, index) => {
    const host = matchLine(line.replace(/\r?\n$/, ''), keys);
    if (host !== undefined) removed.push({ line: index + 1, host });
    return host === undefined;
  });
  return { content: kept.join(''), removed };
}

/** Removes the entries of `hosts` (names and addresses) on `ports` from `file`, atomically. */
export async function removeKnownHosts(
  file: string,
  hosts: readonly string[],
  ports: readonly number[] = [22],
): Promise<KnownHostsRemoval> {
  const keys = hostKeys(hosts, ports);
  let target: string;
  try {
    target = await fs.realpath(file); // keep a symlinked known_hosts a symlink
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { file, removed: [] };
    throw err;
  }
  // Two teardowns rewriting the file at once would each write back what the other removed: one at a time.
  return withFileLock(`${target}.ferry.lock`, async () => {
    for (let attempt = 1; ; attempt++) {
      const written = await rewrite(target, keys);
      if (written !== 'changed-meanwhile') return { file, removed: written };
      // Someone without the lock (ssh adding a host) wrote in between: start over from what is there now.
      if (attempt === 5)
        throw new FerryError(`${target} keeps changing while ferry rewrites it; try again`, 'transient');
    }
  });
}

/** One read–filter–write–rename; refuses to rename over content that changed since it was read. */
async function rewrite(
  target: string,
  keys: readonly string[],
): Promise<KnownHostsRemoval['removed'] | 'changed-meanwhile'> {
  let original: string;
  try {
    original = await fs.readFile(target, 'latin1');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const { content, removed } = removeFromContent(original, keys);
  if (removed.length === 0) return removed;

  const stat = await fs.stat(target);
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.ferry-${randomBytes(6).toString('hex')}`);
  const handle = await fs.open(temp, 'wx', stat.mode & 0o7777);
  try {
    await handle.writeFile(content, 'latin1');
    await handle.chmod(stat.mode & 0o7777); // the umask may have narrowed the mode at open
    if (process.getuid?.() === 0) await handle.chown(stat.uid, stat.gid);
    await handle.sync();
    await handle.close();
    if ((await fs.readFile(target, 'latin1')) !== original) {
      await fs.rm(temp, { force: true });
      return 'changed-meanwhile';
    }
    await fs.rename(temp, target);
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.rm(temp, { force: true });
    throw err;
  }
  await syncDirectory(path.dirname(target));
  return removed;
}

/** The rename is durable only once the directory entry is on disk. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
