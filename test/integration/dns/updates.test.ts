import { DnsClient } from '../../../src/dns/client';
import { DnsError, DnsRecordConflictError } from '../../../src/dns/errors';
import { encodeUpdate, newMessageId, prereq } from '../../../src/dns/message';
import { exchangeTcp } from '../../../src/dns/transport';
import { signMessage, tsigKey, verifyResponse } from '../../../src/dns/tsig';
import { startBind, type BindKey, type BindServer } from '../../../lab/bind-server';
import { dig, nsupdate } from '../../helpers/bind-tools';

/** RFC 2136 + TSIG against the real BIND 9 from Debian, cross-checked with BIND's dig and nsupdate. */
describe('DNS updates against BIND 9', () => {
  let bind: BindServer;
  let dns: DnsClient;
  const client = (key: BindKey, zones?: string[], secret = key.secret) =>
    new DnsClient({
      server: bind.server,
      port: bind.port,
      key: tsigKey(key.name, key.algorithm, secret),
      zones: zones ?? [bind.forwardZone, bind.reverseZone],
    });
  const fqdn = (label: string) => `${label}.${bind.forwardZone}`;

  beforeAll(async () => {
    bind = await startBind();
    dns = client(bind.key);
  });
  afterAll(() => bind?.stop());

  it('adds A and PTR records that dig then sees, and a repeat changes nothing', async () => {
    expect(await dns.ensureA(fqdn('web1'), '192.0.2.21')).toBe('created');
    expect(await dns.ensurePtr('192.0.2.21', fqdn('web1'))).toBe('created');
    expect(await dig(bind, fqdn('web1'), 'A')).toEqual(['192.0.2.21']);
    expect(await dig(bind, '192.0.2.21', 'PTR-of')).toEqual([fqdn('web1')]);
    const serial = await dns.soaSerial(bind.forwardZone);

    expect(await dns.ensureA(fqdn('WEB1') + '.', '192.0.2.21')).toBe('unchanged');
    expect(await dns.ensurePtr('192.0.2.21', fqdn('web1'))).toBe('unchanged');
    expect(await dns.soaSerial(bind.forwardZone)).toBe(serial); // nothing was written
  });

  it('refuses to clobber an A record that points elsewhere, written by another tool', async () => {
    await nsupdate(bind, bind.key, [`update add ${fqdn('db1')} 300 A 192.0.2.99`]);
    const attempt = dns.ensureA(fqdn('db1'), '192.0.2.22');
    await expect(attempt).rejects.toBeInstanceOf(DnsRecordConflictError);
    await expect(attempt).rejects.toMatchObject({
      category: 'policy',
      retryable: false,
      current: ['192.0.2.99'],
      message: expect.stringContaining(`${fqdn('db1')} A is 192.0.2.99, not 192.0.2.22`),
    });
    expect(await dig(bind, fqdn('db1'), 'A')).toEqual(['192.0.2.99']);
  });

  it('refuses a PTR that names another host, and an A on a name that is a CNAME', async () => {
    await nsupdate(bind, bind.key, [`update add 30.2.0.192.in-addr.arpa 300 PTR other.example.org.`]);
    await expect(dns.ensurePtr('192.0.2.30', fqdn('app1'))).rejects.toThrow(
      /30\.2\.0\.192\.in-addr\.arpa PTR is other\.example\.org, not app1/,
    );
    expect(await dig(bind, '192.0.2.30', 'PTR-of')).toEqual(['other.example.org']);

    await nsupdate(bind, bind.key, [`update add ${fqdn('alias')} 300 CNAME web1.${bind.forwardZone}.`]);
    await expect(dns.ensureA(fqdn('alias'), '192.0.2.23')).rejects.toThrow(/is CNAME web1/);
    expect(await dig(bind, fqdn('alias'), 'A')).toEqual([`192.0.2.21`, `web1.${bind.forwardZone}`].sort());
  });

  it('replaces an A record only from the address it is known to hold', async () => {
    await dns.ensureA(fqdn('mover'), '192.0.2.40');
    await expect(dns.replaceA(fqdn('mover'), '192.0.2.49', '192.0.2.41')).rejects.toBeInstanceOf(
      DnsRecordConflictError,
    );
    expect(await dig(bind, fqdn('mover'), 'A')).toEqual(['192.0.2.40']);
    expect(await dns.replaceA(fqdn('mover'), '192.0.2.40', '192.0.2.41')).toBe('replaced');
    expect(await dig(bind, fqdn('mover'), 'A')).toEqual(['192.0.2.41']);
    expect(await dns.replaceA(fqdn('mover'), '192.0.2.40', '192.0.2.41')).toBe('unchanged');
  });

  it('deletes exactly its own record and leaves others at the same name', async () => {
    await dns.ensureA(fqdn('shared'), '192.0.2.50');
    await nsupdate(bind, bind.key, [`update add ${fqdn('shared')} 300 A 192.0.2.51`]);
    expect(await dns.deleteA(fqdn('shared'), '192.0.2.50')).toBe('deleted');
    expect(await dig(bind, fqdn('shared'), 'A')).toEqual(['192.0.2.51']);
    expect(await dns.deleteA(fqdn('shared'), '192.0.2.50')).toBe('absent');

    await dns.ensurePtr('192.0.2.50', fqdn('shared'));
    expect(await dns.deletePtr('192.0.2.50', fqdn('shared'))).toBe('deleted');
    expect(await dig(bind, '192.0.2.50', 'PTR-of')).toEqual([]);
    expect(await dns.deletePtr('192.0.2.50', fqdn('shared'))).toBe('absent');
  });

  it('deletes its record among others whatever case the server keeps and however an IPv6 address is written', async () => {
    await nsupdate(bind, bind.key, [
      `update add 52.2.0.192.in-addr.arpa 300 PTR Mixed-Case.${bind.forwardZone}.`,
      `update add 52.2.0.192.in-addr.arpa 300 PTR other.example.org.`,
    ]);
    expect(await dns.deletePtr('192.0.2.52', fqdn('mixed-case'))).toBe('deleted');
    expect(await dig(bind, '192.0.2.52', 'PTR-of')).toEqual(['other.example.org']);
    expect(await dns.deletePtr('192.0.2.52', fqdn('mixed-case'))).toBe('absent');

    await nsupdate(bind, bind.key, [
      `update add ${fqdn('six')} 300 AAAA 2001:db8::1`,
      `update add ${fqdn('six')} 300 AAAA 2001:db8::2`,
    ]);
    expect(await dns.deleteA(fqdn('six'), '2001:0DB8:0:0::1')).toBe('deleted');
    expect(await dig(bind, fqdn('six'), 'AAAA')).toEqual(['2001:db8::2']);
    expect(await dns.deleteA(fqdn('six'), '2001:0DB8:0:0::1')).toBe('absent');
  });

  it('finds the zone from the server when none is configured', async () => {
    const discovering = client(bind.key, []);
    expect(await discovering.zoneFor('new.' + bind.forwardZone)).toBe(bind.forwardZone);
    expect(await discovering.ensurePtr('192.0.2.60', fqdn('found'))).toBe('created');
    expect(await dig(bind, '192.0.2.60', 'PTR-of')).toEqual([fqdn('found')]);
  });

  it('says BADSIG when the secret is wrong, BADKEY for an unknown key, REFUSED for a key without rights', async () => {
    const wrongSecret = client(bind.key, undefined, Buffer.alloc(32, 7).toString('base64'));
    await expect(wrongSecret.ensureA(fqdn('x'), '192.0.2.70')).rejects.toMatchObject({
      name: 'DnsError',
      category: 'permission',
      rcode: 'NOTAUTH',
      tsigError: 'BADSIG',
      message: expect.stringMatching(/rejected TSIG key "ferry-key": BADSIG, the secret does not match/),
    });
    const unknownKey = client({ ...bind.key, name: 'nobody-key' });
    await expect(unknownKey.proveKey(bind.forwardZone)).rejects.toMatchObject({
      tsigError: 'BADKEY',
      category: 'permission',
    });
    const readOnly = client(bind.readOnlyKey);
    await expect(readOnly.ensureA(fqdn('x'), '192.0.2.70')).rejects.toMatchObject({
      rcode: 'REFUSED',
      category: 'permission',
    });
    expect(await dig(bind, fqdn('x'), 'A')).toEqual([]);
  });

  it('proves the key with a prerequisite-only update, and names zones the server does not serve', async () => {
    await expect(dns.proveKey(bind.forwardZone)).resolves.toBeUndefined();
    await expect(dns.proveKey('example.org')).rejects.toMatchObject({ rcode: 'NOTAUTH' });
    await expect(dns.ensureA('host.example.org', '192.0.2.80')).rejects.toThrow(
      /host\.example\.org is in none of the configured zones/,
    );
  });

  it('verifies the server signature, and rejects a tampered answer', async () => {
    const key = tsigKey(bind.key.name, bind.key.algorithm, bind.key.secret);
    const { wire, mac } = signMessage(
      encodeUpdate(newMessageId(), bind.forwardZone, [prereq.nameInUse(bind.forwardZone)], []),
      key,
    );
    const answer = await exchangeTcp({ server: bind.server, port: bind.port, timeoutMs: 5000 }, wire);
    expect(verifyResponse(answer, key, mac)).toEqual({ status: 'verified' });

    const tampered = Buffer.from(answer);
    tampered[3] = tampered[3]! ^ 0x01; // flip a header bit the MAC covers
    expect(verifyResponse(tampered, key, mac)).toEqual({
      status: 'invalid',
      reason: 'the response MAC does not match',
    });
    expect(verifyResponse(answer, key, Buffer.alloc(mac.length))).toMatchObject({ status: 'invalid' });
    expect(verifyResponse(answer, key, mac, Date.now() + 3_600_000)).toMatchObject({
      status: 'invalid',
      reason: expect.stringContaining('fudge'),
    });
  });

  it('reports an unreachable server as transient', async () => {
    const nowhere = new DnsClient({
      server: '127.0.0.1',
      port: 9,
      key: tsigKey('k', 'hmac-sha256', bind.key.secret),
      zones: ['lab.ferry.test'],
      timeoutMs: 1000,
    });
    const attempt = nowhere.ensureA('a.lab.ferry.test', '192.0.2.1');
    await expect(attempt).rejects.toBeInstanceOf(DnsError);
    await expect(attempt).rejects.toMatchObject({
      category: 'transient',
      message: expect.stringMatching(/cannot reach 127\.0\.0\.1:9 over TCP: ECONNREFUSED/),
    });
  });
});
