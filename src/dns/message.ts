import { randomInt } from 'node:crypto';
import * as packet from 'dns-packet';

/**
 * RFC 2136 update messages on top of dns-packet. dns-packet encodes names and record data; ferry
 * assembles the sections itself because dns-packet cannot write class NONE (254) or empty RDATA for a
 * known type, which RFC 2136 needs for "delete one RR" and "RRset does not exist".
 */
export type RecordType = 'A' | 'AAAA' | 'PTR' | 'CNAME' | 'SOA' | 'ANY';
export type RecordClass = 'IN' | 'ANY' | 'NONE';
/** Types ferry asks for in plain queries. */
export type QueryType = Exclude<RecordType, 'ANY'> | 'TXT';

const TYPE_CODES: Record<RecordType, number> = { A: 1, AAAA: 28, PTR: 12, CNAME: 5, SOA: 6, ANY: 255 };
const CLASS_CODES: Record<RecordClass, number> = { IN: 1, ANY: 255, NONE: 254 };
export const OPCODE_UPDATE = 5;

/** One resource record of an update's prerequisite or update section. `data` absent = empty RDATA. */
export interface UpdateRecord {
  name: string;
  type: RecordType;
  class: RecordClass;
  ttl: number;
  /** An address for A/AAAA, a domain name for PTR/CNAME. */
  data?: string;
}

/** RFC 2136 §2.4 and §2.5, spelled out. */
export const prereq = {
  /** RRset of `type` exists with exactly these values (value-dependent). */
  rrsetEquals: (name: string, type: RecordType, value: string): UpdateRecord => ({
    name,
    type,
    class: 'IN',
    ttl: 0,
    data: value,
  }),
  /** RRset of `type` does not exist. */
  rrsetAbsent: (name: string, type: RecordType): UpdateRecord => ({ name, type, class: 'NONE', ttl: 0 }),
  /** Some RRset exists at `name`. */
  nameInUse: (name: string): UpdateRecord => ({ name, type: 'ANY', class: 'ANY', ttl: 0 }),
};

export const update = {
  add: (name: string, type: RecordType, ttl: number, value: string): UpdateRecord => ({
    name,
    type,
    class: 'IN',
    ttl,
    data: value,
  }),
  /** Delete every RR of `type` at `name`. */
  deleteRrset: (name: string, type: RecordType): UpdateRecord => ({ name, type, class: 'ANY', ttl: 0 }),
  /** Delete the one RR `name type value`, leaving other values alone. */
  deleteRecord: (name: string, type: RecordType, value: string): UpdateRecord => ({
    name,
    type,
    class: 'NONE',
    ttl: 0,
    data: value,
  }),
};

/** The wire form of a domain name, uncompressed and in lower case (RFC 8945 canonical form). */
export function encodeName(name: string): Buffer {
  const labels = name
    .replace(/\.$/, '')
    .toLowerCase()
    .split('.')
    .filter((l) => l.length > 0);
  return Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([Buffer.byteLength(l)]), Buffer.from(l)])),
    Buffer.from([0]),
  ]);
}

/** Length of the uncompressed name starting at `offset`, or -1 if it is compressed or malformed. */
export function nameLength(buf: Buffer, offset: number): number {
  let at = offset;
  while (at < buf.length) {
    const len = buf[at]!;
    if (len === 0) return at + 1 - offset;
    if ((len & 0xc0) !== 0) return -1;
    at += len + 1;
  }
  return -1;
}

function encodeRecord(record: UpdateRecord): Buffer {
  const answer = (
    record.data === undefined
      ? { name: record.name, type: `UNKNOWN_${TYPE_CODES[record.type]}`, ttl: record.ttl, data: Buffer.alloc(0) }
      : { name: record.name, type: record.type, ttl: record.ttl, data: record.data }
  ) as packet.Answer;
  // dns-packet writes a one-answer message; the record follows the 12-byte header.
  const wire = Buffer.from(packet.encode({ answers: [answer] }).subarray(12));
  wire.writeUInt16BE(CLASS_CODES[record.class], nameLength(wire, 0) + 2);
  return wire;
}

function header(id: number, opcode: number, counts: [number, number, number, number]): Buffer {
  const buf = Buffer.alloc(12);
  buf.writeUInt16BE(id, 0);
  buf.writeUInt16BE(opcode << 11, 2);
  counts.forEach((count, i) => buf.writeUInt16BE(count, 4 + 2 * i));
  return buf;
}

export function newMessageId(): number {
  return randomInt(0, 0x10000);
}

/** An unsigned UPDATE message: zone section, prerequisites, updates. */
export function encodeUpdate(id: number, zone: string, prerequisites: UpdateRecord[], updates: UpdateRecord[]): Buffer {
  const zoneSection = Buffer.from(
    packet.encode({ questions: [{ name: zone, type: 'SOA', class: 'IN' }] }).subarray(12),
  );
  return Buffer.concat([
    header(id, OPCODE_UPDATE, [1, prerequisites.length, updates.length, 0]),
    zoneSection,
    ...prerequisites.map(encodeRecord),
    ...updates.map(encodeRecord),
  ]);
}

/** An unsigned standard query (no recursion: ferry asks the authoritative server itself). */
export function encodeQuery(id: number, name: string, type: QueryType, klass: 'IN' | 'CH' = 'IN'): Buffer {
  return packet.encode({ id, type: 'query', flags: 0, questions: [{ name, type, class: klass }] });
}

export interface DecodedResponse {
  id: number;
  rcode: number;
  truncated: boolean;
  packet: packet.DecodedPacket;
}

export function decodeResponse(buf: Buffer): DecodedResponse {
  if (buf.length < 12) throw new Error(`a ${buf.length}-byte answer is too short for a DNS message`);
  const flags = buf.readUInt16BE(2);
  if ((flags & 0x8000) === 0) throw new Error('the answer is not a DNS response (QR bit clear)');
  return { id: buf.readUInt16BE(0), rcode: flags & 0xf, truncated: (flags & 0x0200) !== 0, packet: packet.decode(buf) };
}

/** The values of the records of `type` at `name` in a response's answer section. */
export function answerValues(response: DecodedResponse, name: string, type: QueryType): string[] {
  const wanted = name.replace(/\.$/, '').toLowerCase();
  return (response.packet.answers ?? [])
    .filter((a) => a.type === type && a.name.toLowerCase() === wanted)
    .map((a) => {
      const data = (a as { data: unknown }).data;
      if (type === 'TXT' && Array.isArray(data)) return data.map((d) => String(d)).join('');
      return typeof data === 'string' ? data : JSON.stringify(data);
    });
}
