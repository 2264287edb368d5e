/**
 * Byte helpers for signatures, in plain TypeScript: workflow code has neither Buffer nor Node's crypto.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 (padding optional, whitespace ignored); undefined when it is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  const clean = text.replace(/\s+/g, '').replace(/=+$/, '');
  if (clean.length % 4 === 1 || !/^[A-Za-z0-9+/]*$/.test(clean)) return undefined;
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let buffer = 0;
  let at = 0;
  for (const ch of clean) {
    buffer = (buffer << 6) | ALPHABET.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = [18, 12, 6, 0].map((shift) => ALPHABET[(n >> shift) & 63]!);
    out += chars.slice(0, Math.min(4, bytes.length - i + 1)).join('');
  }
  return out + '='.repeat((3 - (bytes.length % 3)) % 3);
}

export function fromHex(text: string): Uint8Array | undefined {
  if (!/^([0-9a-fA-F]{2})*$/.test(text)) return undefined;
  return Uint8Array.from(text.match(/../g) ?? [], (h) => parseInt(h, 16));
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** UTF-8 (a lone surrogate becomes U+FFFD, as TextEncoder does), in plain code for the workflow sandbox. */
export function utf8(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    let c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

/** Reads SSH wire format (RFC 4251): uint32 lengths before strings. */
export class SshReader {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.at === this.bytes.length;
  }

  raw(length: number): Uint8Array {
    if (this.at + length > this.bytes.length) throw new Error('truncated');
    const out = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return out;
  }

  uint32(): number {
    const b = this.raw(4);
    return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  }

  string(): Uint8Array {
    return this.raw(this.uint32());
  }

  text(): string {
    return String.fromCharCode(...this.string());
  }
}

/** SSH wire `string`: a uint32 length, then the bytes. */
export function sshString(bytes: Uint8Array): Uint8Array {
  const n = bytes.length;
  return concatBytes(Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff), bytes);
}
