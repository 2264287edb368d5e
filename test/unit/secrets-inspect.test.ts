import { inspect } from 'node:util';
import { parseConfig } from '../../src/config';
import { DnsClient } from '../../src/dns/client';
import { tsigKey } from '../../src/dns/tsig';
import { NetboxClient } from '../../src/netbox/client';
import { VsphereClient } from '../../src/vsphere';
import { VsphereTagging } from '../../src/vsphere/tagging';

/** What a log line, an error report or a debugger print of a client shows must not include its secrets. */
describe('secrets stay out of util.inspect', () => {
  const deep = (value: unknown) => inspect(value, { depth: Infinity, showHidden: true, getters: true });
  const PASSWORD = 'vc-Pa55-word-xyzzy';
  const TOKEN = 'nbt_abcdef0123.0123456789abcdef0123456789abcdef';
  const SECRET = Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');

  it('vSphere client, session, transport and tagging', async () => {
    const config = parseConfig(
      { vsphere: { host: 'vc.example.com', user: 'ferry', validateCerts: false } },
      { VMWARE_PASSWORD: PASSWORD },
    ).vsphere!;
    const client = new VsphereClient(config);
    const tagging = new VsphereTagging(config);
    try {
      for (const shown of [
        deep(client),
        deep(client.session),
        deep(client.session.transport),
        deep(tagging),
        JSON.stringify(client.config),
      ]) {
        expect(shown).not.toContain(PASSWORD);
      }
      expect(deep(client)).toContain('vc.example.com'); // the rest is still there to see
    } finally {
      await client.close();
      await tagging.close();
    }
  });

  it('NetBox client and its HTTP layer', async () => {
    const netbox = NetboxClient.fromConfig(
      parseConfig({ netbox: { url: 'https://netbox.example.com' } }, { NETBOX_TOKEN: TOKEN }).netbox!,
    );
    try {
      expect(deep(netbox)).not.toContain('0123456789abcdef0123456789abcdef');
      expect(deep(netbox.http)).toContain('netbox.example.com');
    } finally {
      await netbox.http.close();
    }
  });

  it('DNS client and its TSIG key', () => {
    const dns = new DnsClient({ server: '127.0.0.1', port: 53, key: tsigKey('ferry-key', 'hmac-sha256', SECRET) });
    const shown = deep(dns);
    expect(shown).not.toContain(SECRET);
    expect(shown).not.toMatch(/30 31 32 33 34 35 36 37/); // the decoded secret as a Buffer prints as hex bytes
    expect(dns.keyName).toBe('ferry-key');
  });
});
