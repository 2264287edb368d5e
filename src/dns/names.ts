import { isIP } from 'node:net';
import { DnsError } from './errors';

const invalid = (message: string) => new DnsError(message, 'invalid');

/**
 * Domain names as ferry passes them around: lower case, absolute, without the trailing dot
 * (`vm1.lab.example`). DNS compares names case-insensitively; keeping one form makes zone matching and
 * TSIG's canonical key name simple.
 */
export function normalizeName(name: string, what = 'name'): string {
  const trimmed = name.trim().replace(/\.$/, '').toLowerCase();
  if (trimmed === '') throw invalid(`${what}: empty DNS name`);
  if (trimmed.length > 253) throw invalid(`${what}: "${name}" is longer than 253 characters`);
  for (const label of trimmed.split('.')) {
    if (label.length === 0) throw invalid(`${what}: "${name}" has an empty label`);
    if (label.length > 63) throw invalid(`${what}: "${name}" has a label longer than 63 characters`);
    if (!/^[a-z0-9_*-]+$/.test(label))
      throw invalid(`${what}: "${name}" has a label with characters DNS names do not take`);
  }
  return trimmed;
}

/** `name` is `zone` or below it. Both normalized. */
export function isInZone(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}

/** The most specific of `zones` that holds `name`, if any. */
export function zoneOf(name: string, zones: readonly string[]): string | undefined {
  return zones.filter((z) => isInZone(name, z)).sort((a, b) => b.length - a.length)[0];
}

/** The PTR owner name of an address: `5.2.0.192.in-addr.arpa` or the nibble form under `ip6.arpa`. */
export function reverseName(ip: string): string {
  const family = isIP(ip);
  if (family === 4) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  if (family === 6) return `${expandIpv6(ip).split('').reverse().join('.')}.ip6.arpa`;
  throw invalid(`"${ip}" is not an IPv4 or IPv6 address`);
}

/**
 * A record value in one form for comparison: an AAAA address as its 32 hex digits (`2001:0DB8::1` and
 * `2001:db8:0:0::1` are one address), a name (PTR, CNAME) lower case without the final dot.
 */
export function canonicalValue(type: string, value: string): string {
  if (type === 'AAAA' && isIP(value) === 6) return expandIpv6(value);
  if (type === 'PTR' || type === 'CNAME') return value.trim().replace(/\.$/, '').toLowerCase();
  return value;
}

/** The 32 hex digits of an IPv6 address. */
function expandIpv6(ip: string): string {
  let text = ip.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const octets = v4[1]!.split('.').map(Number);
    text =
      text.slice(0, -v4[1]!.length) +
      `${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((g) => g.padStart(4, '0')).join('');
}
