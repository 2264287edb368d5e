import { normalizeMac } from '../../src/netbox/client';
import { FERRY_CUSTOM_FIELDS, ferryFields, objectTypesOf } from '../../src/netbox/custom-fields';
import { httpError, NetboxStaleError } from '../../src/netbox/errors';
import { authorizationHeader } from '../../src/netbox/http';
import { parseConfig } from '../../src/config';

describe('NetBox client rules', () => {
  it('sends v1 tokens as `Token` and v2 tokens as `Bearer`', () => {
    expect(authorizationHeader('0123456789abcdef0123456789abcdef01234567')).toBe(
      'Token 0123456789abcdef0123456789abcdef01234567',
    );
    expect(authorizationHeader(' nbt_abcDEF123456.secretpart ')).toBe('Bearer nbt_abcDEF123456.secretpart');
  });

  it("reads ferry's custom fields and names the VM and field when one is wrong", () => {
    expect(ferryFields({ id: 1, name: 'a', custom_fields: { ferry_vmid: 120, ferry_vlan: null, other: 'x' } })).toEqual(
      { vmid: 120 },
    );
    expect(() => ferryFields({ id: 7, name: 'web1', custom_fields: { ferry_vmid: 42, ferry_vlan: 5000 } })).toThrow(
      'NetBox VM "web1" (id 7) has invalid ferry custom fields: ferry_vmid: must be at least 100 (got 42); ferry_vlan: must be at most 4094 (got 5000)',
    );
    expect(() => ferryFields({ id: 7, name: 'web1', custom_fields: { ferry_node: '' } })).toThrow(
      'ferry_node: must not be empty (got "")',
    );
  });

  it('defines every custom field it reads', () => {
    const parsedKeys = Object.keys(ferryFields({ id: 1, name: 'a', custom_fields: {} }));
    expect(parsedKeys).toEqual([]);
    expect(FERRY_CUSTOM_FIELDS.map((f) => f.name)).toEqual([
      'ferry_vmid',
      'ferry_node',
      'ferry_storage',
      'ferry_network',
      'ferry_vlan',
      'ferry_iso',
      'ferry_image',
      'ferry_rate',
      'ferry_queues',
      'ferry_firewall',
      'ferry_disk_options',
      'ferry_applied',
      'ferry_owner',
    ]);
    const where = Object.fromEntries(FERRY_CUSTOM_FIELDS.map((f) => [f.name, objectTypesOf(f)]));
    expect(where).toMatchObject({
      ferry_vmid: ['virtualization.virtualmachine'],
      ferry_storage: ['virtualization.virtualmachine', 'virtualization.virtualdisk'],
      ferry_network: ['virtualization.virtualmachine', 'virtualization.vminterface'],
      ferry_rate: ['virtualization.vminterface'],
      ferry_disk_options: ['virtualization.virtualdisk'],
      ferry_applied: ['virtualization.virtualmachine'],
    });
  });

  it('normalizes MAC addresses to NetBox form', () => {
    expect(normalizeMac('bc:24:11:0a:0b:0c')).toBe('BC:24:11:0A:0B:0C');
    expect(normalizeMac('BC-24-11-0A-0B-0C')).toBe('BC:24:11:0A:0B:0C');
    expect(normalizeMac('bc24.110a.0b0c')).toBe('BC:24:11:0A:0B:0C');
    expect(() => normalizeMac('bc:24:11:0a:0b')).toThrow('"bc:24:11:0a:0b" is not a MAC address');
  });

  it('classifies HTTP errors, with DRF bodies as one line', () => {
    expect(
      httpError('NetBox PATCH /x/', 400, { status: ['"bogus" is not a valid choice.'], name: ['required'] }),
    ).toMatchObject({
      category: 'invalid',
      message: 'NetBox PATCH /x/: HTTP 400: status: "bogus" is not a valid choice.; name: required',
    });
    expect(httpError('w', 403, { detail: 'Invalid v1 token' })).toMatchObject({
      category: 'permission',
      retryable: false,
    });
    expect(httpError('w', 404, { detail: 'Not found.' })).toMatchObject({ category: 'not-found' });
    expect(httpError('w', 503, '<html>', 2000)).toMatchObject({
      category: 'transient',
      retryable: true,
      retryAfterMs: 2000,
    });
    const stale = httpError('w', 412, { detail: 'Precondition failed.' }, undefined, 'W/"2026"');
    expect(stale).toBeInstanceOf(NetboxStaleError);
    expect(stale).toMatchObject({ category: 'conflict', retryable: true, currentEtag: 'W/"2026"' });
  });
});

describe('config: DNS and known_hosts', () => {
  it('takes DNS zones and TTL, refuses a TSIG secret that is not base64', () => {
    const config = parseConfig(
      {
        dns: { server: '192.0.2.53', tsigKeyName: 'ferry-key', zones: ['lab.example.com.', '2.0.192.in-addr.arpa'] },
        knownHosts: { file: '/home/ops/.ssh/known_hosts' },
      },
      { FERRY_DNS_TSIG_SECRET: 'c2VjcmV0c2VjcmV0c2VjcmV0', FERRY_DNS_TTL: '60' },
    );
    expect(config.dns).toMatchObject({
      port: 53,
      ttl: 60,
      zones: ['lab.example.com.', '2.0.192.in-addr.arpa'],
      tsigAlgorithm: 'hmac-sha256',
    });
    expect(config.knownHosts).toEqual({ file: '/home/ops/.ssh/known_hosts', ports: [22] });
    expect(() =>
      parseConfig(
        { dns: { server: 'ns1', tsigKeyName: 'k', zones: ['bad zone'] } },
        { FERRY_DNS_TSIG_SECRET: 'not base64!' },
      ),
    ).toThrow(
      /dns\.tsigSecret \(environment FERRY_DNS_TSIG_SECRET\): the TSIG secret must be base64[\s\S]*dns\.zones\.0 \(ferry\.yaml\): a DNS name/,
    );
  });
});
