/**
 * Proxmox schema patterns are Perl regular expressions. The server anchors them (`^(?:…)$`). Translated:
 * - `(?^:…)` (Perl's "default flags" group) becomes a plain group `(?:…)`;
 * - `(?^i:…)` becomes a plain group and the whole expression case-insensitive (JavaScript in Node 20
 *   has no inline flag groups; every `i` pattern in the schema is a whole-value pattern, so this is exact);
 * - `{,N}` (Perl: 0 to N) becomes `{0,N}` (in JavaScript `{,N}` would match the literal text).
 */
export function perlPatternToRegExp(pattern: string): RegExp {
  let flags = '';
  let source = pattern.replace(/\(\?\^([a-z]*):/g, (_m, f: string) => {
    if (f.includes('i')) flags = 'i';
    return '(?:';
  });
  source = source.replace(/\{,(\d+)\}/g, '{0,$1}');
  return new RegExp(`^(?:${source})$`, flags);
}
