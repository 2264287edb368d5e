import { createHash } from 'node:crypto';
import type { SimVm } from './cluster';

/**
 * A VM's firewall config (pve-firewall's /etc/pve/firewall/<vmid>.fw): options, rules (in order),
 * aliases and IP sets. Answers carry pve-firewall's digests: copy_opject_with_digest over the options
 * (`key:value\n`, keys sorted), copy_list_with_digest over a list (each entry's keys sorted, the digest
 * on every entry). Values are typed as its parser leaves them: rule `enable` and `ipversion`, option
 * flags (`enable`, `dhcp`, …) as integers, the rest strings.
 */
export interface FirewallRule {
  [key: string]: string | number;
}

export interface VmFirewall {
  options: Record<string, string | number>;
  rules: FirewallRule[];
  aliases: Map<string, { name: string; cidr: string; comment?: string }>;
  ipsets: Map<string, { comment?: string; entries: Array<{ cidr: string; nomatch?: number; comment?: string }> }>;
}

export function firewallOf(vm: SimVm): VmFirewall {
  return (vm.firewall ??= { options: {}, rules: [], aliases: new Map(), ipsets: new Map() });
}

/** copy_opject_with_digest. */
export function withDigest(object: Record<string, string | number | undefined>): {
  data: Record<string, unknown>;
  digest: string;
} {
  const sha = createHash('sha1');
  const data: Record<string, unknown> = {};
  for (const key of Object.keys(object).sort()) {
    const value = object[key];
    if (value === undefined) continue;
    data[key] = value;
    sha.update(`${key}:${value}\n`);
  }
  const digest = sha.digest('hex');
  return { data: { ...data, digest }, digest };
}

/** copy_list_with_digest. */
export function listWithDigest(list: ReadonlyArray<Record<string, string | number | undefined>>): {
  data: Array<Record<string, unknown>>;
  digest: string;
} {
  const sha = createHash('sha1');
  const data = list.map((entry) => {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(entry).sort()) {
      const value = entry[key];
      if (value === undefined) continue;
      copy[key] = value;
      sha.update(`${key}:${value}\n`);
    }
    return copy;
  });
  const digest = sha.digest('hex');
  return { data: data.map((e) => ({ ...e, digest })), digest };
}

/** PVE::Tools::assert_if_modified. */
export function assertUnmodified(digest: string, given: string | undefined): void {
  if (given !== undefined && given !== digest)
    throw new Error('detected modified configuration - file changed by other user? Try again.');
}
