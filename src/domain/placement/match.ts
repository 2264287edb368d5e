/**
 * How placement settings name VMs and disks. Patterns are globs, case-sensitive:
 * `*` is any run of characters except `/`, `**` any run including `/`, `?` one character except `/`;
 * everything else is literal (no character classes, no regular expressions, so a dot in a VM name is
 * just a dot).
 */

/** The glob as an anchored regular expression. */
export function globToRegExp(pattern: string): RegExp {
  let source = '^';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i += 1;
    } else if (c === '*') {
      source += '[^/]*';
    } else if (c === '?') {
      source += '[^/]';
    } else {
      source += c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    }
  }
  return new RegExp(`${source}$`, 'u');
}

export function globMatches(pattern: string, text: string): boolean {
  return globToRegExp(pattern).test(text);
}

/**
 * A folder pattern matches the VM's folder or any folder above it: `/DC0/vm/apps` takes in
 * `/DC0/vm/apps/web` too. A trailing `/` in the pattern is ignored.
 */
export function folderMatches(pattern: string, folder: string | undefined): boolean {
  if (folder === undefined) return false;
  const wanted = pattern.length > 1 ? pattern.replace(/\/+$/, '') : pattern;
  const regex = globToRegExp(wanted);
  const parts = folder.replace(/\/+$/, '').split('/');
  for (let n = parts.length; n >= 1; n -= 1) {
    const prefix = parts.slice(0, n).join('/');
    if (regex.test(prefix === '' ? '/' : prefix)) return true;
  }
  return false;
}

/**
 * vSphere tags are written `category/name`. A wanted tag with a `/` must equal one of the VM's tags;
 * a wanted tag without one matches that tag name in any category. Exact, not a pattern.
 */
export function tagMatches(wanted: string, tags: readonly string[]): boolean {
  if (wanted.includes('/')) return tags.includes(wanted);
  return tags.some((tag) => tag === wanted || tag.slice(tag.indexOf('/') + 1) === wanted);
}

/** What a placement rule or anti-affinity group selects. Every field given must match. */
export interface VmMatch {
  /** Folder path glob, e.g. `/DC0/vm/apps` (subfolders included). */
  folder?: string;
  /** vSphere tag, `category/name` or just `name`. */
  tag?: string;
  /** VM name glob, e.g. `db-*`. */
  name?: string;
}

/** A match with no field selects every VM (a catch-all last rule). */
export function vmMatches(match: VmMatch, vm: { name: string; folder?: string; tags: readonly string[] }): boolean {
  if (match.folder !== undefined && !folderMatches(match.folder, vm.folder)) return false;
  if (match.tag !== undefined && !tagMatches(match.tag, vm.tags)) return false;
  if (match.name !== undefined && !globMatches(match.name, vm.name)) return false;
  return true;
}

/** `folder /DC0/vm/db, tag tier/gold`: how a match is named in reasons. */
export function describeMatch(match: VmMatch): string {
  const parts: string[] = [];
  if (match.folder !== undefined) parts.push(`folder ${match.folder}`);
  if (match.tag !== undefined) parts.push(`tag ${match.tag}`);
  if (match.name !== undefined) parts.push(`name ${match.name}`);
  return parts.length === 0 ? 'every VM' : parts.join(', ');
}
