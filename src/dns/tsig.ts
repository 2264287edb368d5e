import { createHmac, timingSafeEqual } from 'node:crypto';
import { DnsError } from './errors';
import { encodeName, nameLength } from './message';

/**
 * TSIG (RFC 8945) signing and verification with HMAC-SHA256/512 from node:crypto. dns-packet has no
 * codec for the TSIG record, so its RDATA is written and read here.
 */
export type TsigAlgorithm = 'hmac-sha256' | 'hmac-sha512';

export interface TsigKey {
  name: string;
  algorithm: TsigAlgorithm;
  /** The decoded secret (the config holds it base64-encoded). */
  secret: Buffer;
}

const TYPE_TSIG = 250;
const CLASS_ANY = 255;
export const FUDGE_SECONDS = 300;
const HASH: Record<TsigAlgorithm, string> = { 'hmac-sha256': 'sha256', 'hmac-sha512': 'sha512' };

/** Decodes and checks a base64 TSIG secret, saying what is wrong without echoing it. */
export function tsigKey(name: string, algorithm: TsigAlgorithm, secretBase64: string): TsigKey {
  const text = secretBase64.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 !== 0) {
    throw new DnsError(`the TSIG secret for key "${name}" is not base64 (as tsig-keygen prints it)`, 'invalid');
  }
  const secret = Buffer.from(text, 'base64');
  if (secret.length < 16)
    throw new DnsError(`the TSIG secret for key "${name}" is only ${secret.length} bytes; use at least 16`, 'invalid');
  return { name: name.replace(/\.$/, '').toLowerCase(), algorithm, secret };
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

function u48(n: number): Buffer {
  const b = Buffer.alloc(6);
  b.writeUIntBE(n, 0, 6);
  return b;
}

interface TsigFields {
  algorithm: string;
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  other: Buffer;
}

/** The "TSIG variables" that are MACed after the message (RFC 8945 §4.3.3). */
function variables(keyName: string, f: TsigFields): Buffer {
  return Buffer.concat([
    encodeName(keyName),
    u16(CLASS_ANY),
    Buffer.alloc(4), // TTL 0
    encodeName(f.algorithm),
    u48(f.timeSigned),
    u16(f.fudge),
    u16(f.error),
    u16(f.other.length),
    f.other,
  ]);
}

function mac(key: TsigKey, parts: Buffer[]): Buffer {
  const hmac = createHmac(HASH[key.algorithm], key.secret);
  for (const p of parts) hmac.update(p);
  return hmac.digest();
}

/** Appends a TSIG record to an unsigned message. Returns the signed message and the request MAC. */
export function signMessage(message: Buffer, key: TsigKey, nowMs = Date.now()): { wire: Buffer; mac: Buffer } {
  const fields: TsigFields = {
    algorithm: key.algorithm,
    timeSigned: Math.floor(nowMs / 1000),
    fudge: FUDGE_SECONDS,
    mac: Buffer.alloc(0),
    originalId: message.readUInt16BE(0),
    error: 0,
    other: Buffer.alloc(0),
  };
  fields.mac = mac(key, [message, variables(key.name, fields)]);
  const rdata = Buffer.concat([
    encodeName(fields.algorithm),
    u48(fields.timeSigned),
    u16(fields.fudge),
    u16(fields.mac.length),
    fields.mac,
    u16(fields.originalId),
    u16(fields.error),
    u16(0),
  ]);
  const record = Buffer.concat([
    encodeName(key.name),
    u16(TYPE_TSIG),
    u16(CLASS_ANY),
    Buffer.alloc(4),
    u16(rdata.length),
    rdata,
  ]);
  const wire = Buffer.concat([message, record]);
  wire.writeUInt16BE(message.readUInt16BE(10) + 1, 10);
  return { wire, mac: fields.mac };
}

export type TsigVerdict =
  | { status: 'verified' }
  /** The response carries no TSIG record (servers answer a request they could not verify unsigned). */
  | { status: 'unsigned' }
  /** The server reports a TSIG error (BADSIG, BADKEY, BADTIME…); such answers carry no usable MAC. */
  | { status: 'tsig-error'; error: number }
  | { status: 'invalid'; reason: string };

function readName(buf: Buffer, offset: number): { name: string; next: number } | undefined {
  const length = nameLength(buf, offset);
  if (length < 0) return undefined;
  const labels: string[] = [];
  let at = offset;
  while (buf[at] !== 0) {
    labels.push(buf.toString('latin1', at + 1, at + 1 + buf[at]!).toLowerCase());
    at += buf[at]! + 1;
  }
  return { name: labels.join('.'), next: offset + length };
}

/** Offset just past the (possibly compressed) name at `offset`. */
function skipName(buf: Buffer, offset: number): number {
  let at = offset;
  for (;;) {
    const len = buf[at];
    if (len === undefined) throw new Error('truncated name');
    if (len === 0) return at + 1;
    if ((len & 0xc0) === 0xc0) return at + 2;
    at += len + 1;
  }
}

/** Where the last resource record of a message starts (walking the sections forward). */
function lastRecordOffset(buf: Buffer): number {
  const counts = [4, 6, 8, 10].map((o) => buf.readUInt16BE(o));
  let at = 12;
  for (let q = 0; q < counts[0]!; q++) at = skipName(buf, at) + 4;
  let last = -1;
  const records = counts[1]! + counts[2]! + counts[3]!;
  for (let r = 0; r < records; r++) {
    last = at;
    const rdataAt = skipName(buf, at) + 10;
    at = rdataAt + buf.readUInt16BE(rdataAt - 2);
  }
  if (at !== buf.length) throw new Error('the message length does not match its records');
  return last;
}

/**
 * Verifies a response's TSIG record against the request MAC: the record is last in the additional
 * section, its MAC covers the request MAC, the response without the record (ARCOUNT one less, the
 * original ID) and the TSIG variables, and its time is within the fudge of ours.
 */
export function verifyResponse(response: Buffer, key: TsigKey, requestMac: Buffer, nowMs = Date.now()): TsigVerdict {
  const arcount = response.readUInt16BE(10);
  if (arcount === 0) return { status: 'unsigned' };
  let start: number, owner: { name: string; next: number } | undefined, alg: { name: string; next: number } | undefined;
  let timeSigned: number, fudge: number, theirMac: Buffer, originalId: number, error: number, other: Buffer;
  try {
    start = lastRecordOffset(response);
    owner = readName(response, start);
    if (!owner || response.readUInt16BE(owner.next) !== TYPE_TSIG) return { status: 'unsigned' };
    if (owner.name !== key.name)
      return { status: 'invalid', reason: `signed with key "${owner.name}", not "${key.name}"` };
    alg = readName(response, owner.next + 10);
    if (!alg) return { status: 'invalid', reason: 'malformed TSIG algorithm name' };
    let at = alg.next;
    timeSigned = response.readUIntBE(at, 6);
    fudge = response.readUInt16BE(at + 6);
    const macSize = response.readUInt16BE(at + 8);
    at += 10;
    theirMac = response.subarray(at, at + macSize);
    at += macSize;
    originalId = response.readUInt16BE(at);
    error = response.readUInt16BE(at + 2);
    other = response.subarray(at + 6, at + 6 + response.readUInt16BE(at + 4));
  } catch (err) {
    return { status: 'invalid', reason: `malformed response: ${(err as Error).message}` };
  }

  if (error !== 0) return { status: 'tsig-error', error };
  if (alg.name !== key.algorithm)
    return { status: 'invalid', reason: `algorithm ${alg.name}, expected ${key.algorithm}` };

  const stripped = Buffer.from(response.subarray(0, start));
  stripped.writeUInt16BE(originalId, 0);
  stripped.writeUInt16BE(arcount - 1, 10);
  const expected = mac(key, [
    u16(requestMac.length),
    requestMac,
    stripped,
    variables(key.name, { algorithm: alg.name, timeSigned, fudge, mac: theirMac, originalId, error, other }),
  ]);
  if (theirMac.length !== expected.length || !timingSafeEqual(theirMac, expected)) {
    return { status: 'invalid', reason: 'the response MAC does not match' };
  }
  if (Math.abs(Math.floor(nowMs / 1000) - timeSigned) > fudge) {
    return {
      status: 'invalid',
      reason: `the response was signed at ${timeSigned}, outside the ${fudge} s fudge of this clock`,
    };
  }
  return { status: 'verified' };
}
