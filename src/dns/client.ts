import { isIP } from 'node:net';
import type { DnsConfig } from '../config';
import { DnsError, DnsRecordConflictError, rcodeError, rcodeName } from './errors';
import {
  answerValues,
  decodeResponse,
  encodeQuery,
  encodeUpdate,
  newMessageId,
  prereq,
  update,
  type DecodedResponse,
  type QueryType,
  type UpdateRecord,
} from './message';
import { canonicalValue, normalizeName, reverseName, zoneOf } from './names';
import { exchangeTcp, exchangeUdp, type Exchange } from './transport';
import { signMessage, tsigKey, verifyResponse, type TsigKey } from './tsig';

/** The record types ferry manages. */
type ManagedType = 'A' | 'AAAA' | 'PTR';

/** What an idempotent record operation did. */
export type RecordOutcome = 'created' | 'unchanged' | 'replaced' | 'deleted' | 'absent';

/** Prerequisite outcomes RFC 2136 reports as response codes; anything else is an error. */
const PREREQ_RCODES = new Set([3, 6, 7, 8]); // NXDOMAIN, YXDOMAIN, YXRRSET, NXRRSET

export interface DnsClientOptions {
  server: string;
  port: number;
  key: TsigKey;
  /** Zones ferry may update; the most specific one holding a name is used. Empty: ask the server (SOA). */
  zones?: string[];
  ttl?: number;
  timeoutMs?: number;
}

/**
 * RFC 2136 dynamic updates signed with TSIG, for the A and PTR records of ferry's VMs. Every change
 * carries prerequisites, so ferry never overwrites a record that points somewhere else: it creates a
 * missing record, confirms one that already says the same, and refuses (DnsRecordConflictError) a
 * record that says something else. Deletion removes only the exact record ferry names.
 */
export class DnsClient {
  readonly target: Exchange;
  readonly ttl: number;
  private readonly zones: string[];
  /** The TSIG key (with its secret) as an ES private field: util.inspect never shows it. */
  readonly #key: TsigKey;

  constructor(options: DnsClientOptions) {
    this.#key = options.key;
    this.target = { server: options.server, port: options.port, timeoutMs: options.timeoutMs ?? 5000 };
    this.ttl = options.ttl ?? 300;
    this.zones = (options.zones ?? []).map((z) => normalizeName(z, 'dns.zones'));
  }

  static fromConfig(config: DnsConfig): DnsClient {
    return new DnsClient({
      server: config.server,
      port: config.port,
      key: tsigKey(config.tsigKeyName, config.tsigAlgorithm, config.tsigSecret),
      zones: config.zones,
      ttl: config.ttl,
    });
  }

  get keyName(): string {
    return this.#key.name;
  }

  // ---- A records ---------------------------------------------------------------------------------

  /**
   * `name A address` (AAAA for an IPv6 address) exists afterwards; refuses if `name` has an address
   * (or a CNAME) saying otherwise.
   */
  ensureA(name: string, address: string, ttl = this.ttl): Promise<RecordOutcome> {
    return this.ensure(normalizeName(name), addressType(address), address, ttl);
  }

  /**
   * Moves `name` from `from` to `address` in one update: only if its A RRset is exactly `from`
   * (or already `address`). Use when the old address is known to be ferry's own.
   */
  replaceA(name: string, from: string, address: string, ttl = this.ttl): Promise<RecordOutcome> {
    return this.replace(normalizeName(name), addressType(address), from, address, ttl);
  }

  /** Removes `name A address`, and nothing else: another address at `name` stays. */
  deleteA(name: string, address: string): Promise<RecordOutcome> {
    return this.deleteExact(normalizeName(name), addressType(address), address);
  }

  // ---- PTR records -------------------------------------------------------------------------------

  /** `reverse(address) PTR name` exists afterwards; refuses if the address's PTR names another host. */
  ensurePtr(address: string, name: string, ttl = this.ttl): Promise<RecordOutcome> {
    return this.ensure(reverseName(address), 'PTR', normalizeName(name), ttl);
  }

  replacePtr(address: string, from: string, name: string, ttl = this.ttl): Promise<RecordOutcome> {
    return this.replace(reverseName(address), 'PTR', normalizeName(from), normalizeName(name), ttl);
  }

  deletePtr(address: string, name: string): Promise<RecordOutcome> {
    return this.deleteExact(reverseName(address), 'PTR', normalizeName(name));
  }

  // ---- Reading -----------------------------------------------------------------------------------

  /** The values of `name`'s records of `type`, asked of the configured server (unsigned, no recursion). */
  async lookup(name: string, type: QueryType, klass: 'IN' | 'CH' = 'IN'): Promise<string[]> {
    const fqdn = klass === 'CH' ? name : normalizeName(name);
    const response = await this.query(fqdn, type, klass);
    if (response.rcode !== 0 && response.rcode !== 3)
      throw rcodeError(response.rcode, 0, { server: this.where, zone: fqdn });
    return answerValues(response, fqdn, type);
  }

  /** The zone's SOA serial, which also proves the server is authoritative for it. */
  async soaSerial(zone: string): Promise<number> {
    const name = normalizeName(zone);
    const response = await this.query(name, 'SOA');
    const soa = (response.packet.answers ?? []).find((a) => a.type === 'SOA' && a.name.toLowerCase() === name);
    if (response.rcode !== 0 || !soa || !response.packet.flag_aa) {
      throw new DnsError(
        `${this.where} is not authoritative for zone ${name} (answer ${rcodeName(response.rcode)}${soa ? ', not authoritative' : ', no SOA'})`,
        'invalid',
      );
    }
    return (soa as { data: { serial: number } }).data.serial;
  }

  /** The server's `version.bind` (CH TXT), when it tells. */
  async serverVersion(): Promise<string | undefined> {
    try {
      return (await this.lookup('version.bind', 'TXT', 'CH'))[0];
    } catch {
      return undefined;
    }
  }

  /**
   * Proves the TSIG key without changing anything: a signed update whose only content is the
   * prerequisite "the zone apex exists". The server must verify our signature to answer NOERROR, and
   * its signed answer proves we share the key.
   */
  async proveKey(zone: string): Promise<void> {
    const name = normalizeName(zone);
    await this.sendUpdate(name, [prereq.nameInUse(name)], []);
  }

  /** The zone that holds `name`: the configured zone, else the one the server's SOA names. */
  async zoneFor(name: string): Promise<string> {
    if (this.zones.length > 0) {
      const zone = zoneOf(name, this.zones);
      if (!zone)
        throw new DnsError(
          `${name} is in none of the configured zones (${this.zones.join(', ')}); add its zone to dns.zones`,
          'invalid',
        );
      return zone;
    }
    const response = await this.query(name, 'SOA');
    const soa = [...(response.packet.answers ?? []), ...(response.packet.authorities ?? [])].find(
      (a) => a.type === 'SOA',
    );
    if (!soa)
      throw new DnsError(`${this.where} names no zone for ${name} (no SOA in its answer); set dns.zones`, 'invalid');
    return soa.name.toLowerCase();
  }

  // ---- The three idempotent operations -----------------------------------------------------------

  private async ensure(owner: string, type: ManagedType, value: string, ttl: number): Promise<RecordOutcome> {
    const zone = await this.zoneFor(owner);
    // A name with a CNAME takes no other data (RFC 2136 §3.4.2.2 would ignore the add silently).
    const created = await this.sendUpdate(
      zone,
      [prereq.rrsetAbsent(owner, type), prereq.rrsetAbsent(owner, 'CNAME')],
      [update.add(owner, type, ttl, value)],
    );
    if (created === 0) return 'created';
    const same = await this.sendUpdate(zone, [prereq.rrsetEquals(owner, type, value)], []);
    if (same === 0) return 'unchanged';
    throw await this.conflict(owner, type, value);
  }

  private async replace(
    owner: string,
    type: ManagedType,
    from: string,
    value: string,
    ttl: number,
  ): Promise<RecordOutcome> {
    const zone = await this.zoneFor(owner);
    const moved = await this.sendUpdate(
      zone,
      [prereq.rrsetEquals(owner, type, from)],
      [update.deleteRrset(owner, type), update.add(owner, type, ttl, value)],
    );
    if (moved === 0) return 'replaced';
    // Not `from`: absent is created, already `value` is unchanged, anything else is refused.
    return this.ensure(owner, type, value, ttl);
  }

  private async deleteExact(owner: string, type: ManagedType, value: string): Promise<RecordOutcome> {
    const zone = await this.zoneFor(owner);
    // Only when the record is there, so the outcome says whether anything was removed.
    const there = await this.sendUpdate(
      zone,
      [prereq.rrsetEquals(owner, type, value)],
      [update.deleteRecord(owner, type, value)],
    );
    if (there === 0) return 'deleted';
    // The RRset holds other values too (or none): delete just ours, which is a no-op when it is absent.
    // Compared in canonical form: the server answers `2001:db8::1` for `2001:0DB8::1` and keeps a name's case.
    const wanted = canonicalValue(type, value);
    const before = await this.lookup(owner, type);
    if (!before.some((v) => canonicalValue(type, v) === wanted)) return 'absent';
    await this.sendUpdate(zone, [], [update.deleteRecord(owner, type, value)]);
    return 'deleted';
  }

  private async conflict(owner: string, type: ManagedType, wanted: string): Promise<DnsRecordConflictError> {
    const current = [
      ...(await this.lookup(owner, type)),
      ...(await this.lookup(owner, 'CNAME')).map((c) => `CNAME ${c}`),
    ];
    return new DnsRecordConflictError(
      `${owner} ${type} is ${current.length ? current.join(', ') : 'held by other data'}, not ${wanted}: ferry does not overwrite ` +
        `a record that points elsewhere; remove it or correct the source of truth`,
      current,
    );
  }

  // ---- Wire --------------------------------------------------------------------------------------

  private get where(): string {
    return `${this.target.server}:${this.target.port}`;
  }

  private async query(name: string, type: QueryType, klass: 'IN' | 'CH' = 'IN'): Promise<DecodedResponse> {
    const message = encodeQuery(newMessageId(), name, type, klass);
    let response = this.decode(await exchangeUdp(this.target, message));
    if (response.truncated) response = this.decode(await exchangeTcp(this.target, message));
    return response;
  }

  private decode(raw: Buffer): DecodedResponse {
    try {
      return decodeResponse(raw);
    } catch (err) {
      throw new DnsError(`${this.where} sent an answer that is not DNS: ${(err as Error).message}`, 'transient');
    }
  }

  /**
   * Sends one signed update over TCP (no truncation, no lost-answer ambiguity) and verifies the signed
   * answer. Returns the response code for prerequisite outcomes (0, NXDOMAIN, YXDOMAIN, YXRRSET,
   * NXRRSET); throws a DnsError for everything else.
   */
  async sendUpdate(zone: string, prerequisites: UpdateRecord[], updates: UpdateRecord[]): Promise<number> {
    const { wire, mac } = signMessage(encodeUpdate(newMessageId(), zone, prerequisites, updates), this.#key);
    const raw = await exchangeTcp(this.target, wire);
    const response = this.decode(raw);
    if (response.id !== wire.readUInt16BE(0))
      throw new DnsError(`${this.where} answered another message (ID mismatch)`, 'transient');

    const verdict = verifyResponse(raw, this.#key, mac);
    const context = { server: this.where, zone, keyName: this.keyName };
    if (verdict.status === 'tsig-error') throw rcodeError(response.rcode, verdict.error, context);
    if (verdict.status === 'unsigned') {
      // Servers answer requests they cannot verify without a signature (BADKEY/BADSIG in the rcode).
      if (response.rcode !== 0 && !PREREQ_RCODES.has(response.rcode)) throw rcodeError(response.rcode, 0, context);
      throw new DnsError(
        `${this.where} answered the signed update for zone ${zone} without a TSIG signature`,
        'permission',
      );
    }
    if (verdict.status === 'invalid') {
      throw new DnsError(
        `the answer from ${this.where} for zone ${zone} failed TSIG verification: ${verdict.reason}`,
        'permission',
      );
    }
    if (response.rcode === 0 || PREREQ_RCODES.has(response.rcode)) return response.rcode;
    throw rcodeError(response.rcode, 0, context);
  }
}

function addressType(address: string): 'A' | 'AAAA' {
  const family = isIP(address);
  if (family === 4) return 'A';
  if (family === 6) return 'AAAA';
  throw new DnsError(`"${address}" is not an IP address`, 'invalid');
}
