import * as packet from 'dns-packet';
import { encodeName, encodeUpdate, prereq, update } from '../../src/dns/message';
import { normalizeName, reverseName, zoneOf } from '../../src/dns/names';
import { signMessage, tsigKey, verifyResponse } from '../../src/dns/tsig';

describe('DNS names', () => {
  it('normalizes names and says what is wrong with a bad one', () => {
    expect(normalizeName('VM1.Lab.Example.')).toBe('vm1.lab.example');
    expect(() => normalizeName('a..b', 'dns.zones')).toThrow('dns.zones: "a..b" has an empty label');
    expect(() => normalizeName('bad name.example')).toThrow('has a label with characters DNS names do not take');
    expect(() => normalizeName(`${'x'.repeat(64)}.example`)).toThrow('longer than 63');
  });

  it('builds reverse names for IPv4 and IPv6', () => {
    expect(reverseName('192.0.2.5')).toBe('5.2.0.192.in-addr.arpa');
    expect(reverseName('2001:db8::1')).toBe(`1.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`);
    expect(reverseName('::ffff:192.0.2.5')).toBe(`5.0.2.0.0.0.0.c.f.f.f.f.${'0.'.repeat(20)}ip6.arpa`);
    expect(() => reverseName('300.1.1.1')).toThrow('"300.1.1.1" is not an IPv4 or IPv6 address');
  });

  it('picks the most specific configured zone', () => {
    const zones = ['example.com', 'lab.example.com', '2.0.192.in-addr.arpa'];
    expect(zoneOf('vm1.lab.example.com', zones)).toBe('lab.example.com');
    expect(zoneOf('www.example.com', zones)).toBe('example.com');
    expect(zoneOf('5.2.0.192.in-addr.arpa', zones)).toBe('2.0.192.in-addr.arpa');
    expect(zoneOf('notexample.com', zones)).toBeUndefined();
  });
});

describe('RFC 2136 messages', () => {
  it('lays out an UPDATE: opcode 5, zone, prerequisites, updates, with class NONE where RFC 2136 wants it', () => {
    const wire = encodeUpdate(
      0x1234,
      'lab.example',
      [prereq.rrsetAbsent('vm1.lab.example', 'A')],
      [update.add('vm1.lab.example', 'A', 300, '192.0.2.5'), update.deleteRecord('vm1.lab.example', 'A', '192.0.2.6')],
    );
    expect(wire.readUInt16BE(0)).toBe(0x1234);
    expect((wire.readUInt16BE(2) >> 11) & 0xf).toBe(5);
    expect([4, 6, 8, 10].map((o) => wire.readUInt16BE(o))).toEqual([1, 1, 2, 0]);

    const decoded = packet.decode(wire);
    expect(decoded.questions).toEqual([{ name: 'lab.example', type: 'SOA', class: 'IN' }]);
    const [absent] = decoded.answers as Array<{ type: string; class: string; ttl: number; data: Buffer }>;
    expect(absent).toMatchObject({ name: 'vm1.lab.example', type: 'A', class: 'UNKNOWN_254', ttl: 0 });
    const [add, del] = decoded.authorities as Array<{ type: string; class: string; ttl: number; data: unknown }>;
    expect(add).toMatchObject({ type: 'A', class: 'IN', ttl: 300, data: '192.0.2.5' });
    expect(del).toMatchObject({ type: 'A', class: 'UNKNOWN_254', ttl: 0, data: '192.0.2.6' });
  });

  it('writes names in canonical (lower-case, uncompressed) wire form', () => {
    expect(encodeName('Ferry-Key.')).toEqual(Buffer.from([9, ...Buffer.from('ferry-key'), 0]));
  });
});

describe('TSIG', () => {
  const key = tsigKey('ferry-key', 'hmac-sha256', Buffer.alloc(32, 1).toString('base64'));

  it('refuses a secret that is not base64 or too short, without echoing it', () => {
    expect(() => tsigKey('k', 'hmac-sha256', 'not base64!')).toThrow('the TSIG secret for key "k" is not base64');
    expect(() => tsigKey('k', 'hmac-sha256', 'c2hvcnQ=')).toThrow('only 5 bytes');
  });

  it('appends a TSIG record last and counts it in ARCOUNT', () => {
    const message = encodeUpdate(7, 'lab.example', [], []);
    const { wire, mac } = signMessage(message, key, 1_700_000_000_000);
    expect(wire.readUInt16BE(10)).toBe(1);
    expect(mac).toHaveLength(32);
    const tsig = packet.decode(wire).additionals![0] as { name: string; type: string; class: string };
    expect(tsig).toMatchObject({ name: 'ferry-key', type: 'TSIG', class: 'ANY' });
    // Same input, same MAC; another time, another MAC.
    expect(signMessage(message, key, 1_700_000_000_000).mac).toEqual(mac);
    expect(signMessage(message, key, 1_700_000_001_000).mac).not.toEqual(mac);
  });

  it('calls an answer without a TSIG record unsigned', () => {
    const answer = Buffer.from(encodeUpdate(7, 'lab.example', [], []));
    answer.writeUInt16BE(answer.readUInt16BE(2) | 0x8000, 2);
    expect(verifyResponse(answer, key, Buffer.alloc(32))).toEqual({ status: 'unsigned' });
  });
});
