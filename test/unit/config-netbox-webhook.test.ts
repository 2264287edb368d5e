import { parseConfig, parseListenAddress, webhookSecret } from '../../src/config';
import { differingFields, wantedEventRule, wantedWebhook } from '../../src/netbox/webhook-setup';
import { problemsOf } from '../helpers/config-problems';

const SECRET = '7c1f0e0d4b1a6d2e9f8a3b5c';
const netbox = (webhook: Record<string, unknown>) => ({
  netbox: {
    url: 'https://netbox.example.com',
    webhook: { url: 'https://ferry.example.com:8787/netbox/webhook', ...webhook },
  },
});
const env = { NETBOX_TOKEN: 'nbt_a.b', FERRY_NETBOX_WEBHOOK_SECRET: SECRET };

describe('config: netbox.webhook', () => {
  it('has defaults for all but the URL and the secret, which comes from FERRY_NETBOX_WEBHOOK_SECRET', () => {
    expect(parseConfig(netbox({}), env).netbox!.webhook).toEqual({
      url: 'https://ferry.example.com:8787/netbox/webhook',
      listen: '127.0.0.1:8787',
      secret: SECRET,
      inWorker: false,
      name: 'ferry',
      validateCerts: true,
    });
  });

  it('takes URL and listen address from the environment too', () => {
    const config = parseConfig(
      { netbox: { url: 'https://netbox.example.com' } },
      {
        ...env,
        FERRY_NETBOX_WEBHOOK_URL: 'http://10.0.0.5:9000/netbox/webhook',
        FERRY_NETBOX_WEBHOOK_LISTEN: '0.0.0.0:9000',
      },
    );
    expect(config.netbox!.webhook).toMatchObject({
      url: 'http://10.0.0.5:9000/netbox/webhook',
      listen: '0.0.0.0:9000',
    });
  });

  it('refuses the secret in the file, and says where to set a missing one', () => {
    expect(problemsOf(() => parseConfig(netbox({ secret: SECRET }), env, 'site.yaml'))).toEqual([
      "netbox.webhook.secret (site.yaml): secrets are not read from files; set FERRY_NETBOX_WEBHOOK_SECRET in the worker's environment",
    ]);
    // A worker that does not run the receiver starts without it; one that does, and setup and the receiver, need it.
    const withoutSecret = parseConfig(netbox({}), { NETBOX_TOKEN: 'nbt_a.b' }, 'site.yaml').netbox!.webhook!;
    expect(withoutSecret.secret).toBeUndefined();
    expect(problemsOf(() => parseConfig(netbox({ inWorker: true }), { NETBOX_TOKEN: 'nbt_a.b' }, 'site.yaml'))).toEqual(
      [
        "netbox.webhook.secret: missing (the worker runs the receiver (inWorker)): set FERRY_NETBOX_WEBHOOK_SECRET in the worker's environment",
      ],
    );
    expect(problemsOf(() => webhookSecret(withoutSecret, '`ferry netbox setup`'))).toEqual([
      'netbox.webhook.secret: missing: `ferry netbox setup` needs it; set FERRY_NETBOX_WEBHOOK_SECRET in its environment',
    ]);
    expect(webhookSecret(parseConfig(netbox({}), env).netbox!.webhook!, 'x')).toBe(SECRET);
  });

  it('refuses, in one pass: a short secret, a bad listen address, a URL that is not http(s), a CA file NetBox would not use, half a certificate', () => {
    const problems = problemsOf(() =>
      parseConfig(
        {
          netbox: {
            url: 'https://netbox.example.com',
            webhook: {
              url: 'ftp://ferry',
              listen: '8787',
              validateCerts: false,
              caFile: '/etc/ca.pem',
              certFile: '/c.pem',
            },
          },
        },
        { NETBOX_TOKEN: 'nbt_a.b', FERRY_NETBOX_WEBHOOK_SECRET: 'short' },
        'site.yaml',
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^netbox\.webhook\.url .*an http\(s\) URL/),
        expect.stringMatching(/^netbox\.webhook\.listen .*host:port, e\.g\. 127\.0\.0\.1:8787/),
        expect.stringMatching(
          /^netbox\.webhook\.secret \(environment FERRY_NETBOX_WEBHOOK_SECRET\): at least 16 characters/,
        ),
        expect.stringMatching(/^netbox\.webhook\.caFile .*validateCerts: false would not be used/),
        expect.stringMatching(/^netbox\.webhook\.keyFile .*HTTPS needs both certFile and keyFile/),
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('is not needed by commands that leave netbox out of their scope', () => {
    expect(parseConfig(netbox({}), {}, 'site.yaml', { sections: [] }).netbox).toBeUndefined();
  });
});

describe('parseListenAddress', () => {
  it('reads host:port and [v6]:port', () => {
    expect(parseListenAddress('127.0.0.1:8787')).toEqual({ host: '127.0.0.1', port: 8787 });
    expect(parseListenAddress('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListenAddress('ferry.example.com:443')).toEqual({ host: 'ferry.example.com', port: 443 });
  });
  it('refuses what is not one', () => {
    for (const text of ['8787', '::1:8787', 'host:65536', 'http://host:80', 'host:', ':80'])
      expect(parseListenAddress(text)).toBeUndefined();
  });
});

describe('the webhook and event rule ferry wants in NetBox', () => {
  const config = parseConfig(netbox({ caFile: '/etc/netbox/ferry-ca.pem' }), env).netbox!.webhook!;

  it("posts NetBox's default JSON body to the receiver, signed, verifying its certificate with the CA file", () => {
    expect(wantedWebhook(config)).toEqual({
      name: 'ferry',
      payload_url: 'https://ferry.example.com:8787/netbox/webhook',
      http_method: 'POST',
      http_content_type: 'application/json',
      additional_headers: '',
      body_template: '',
      secret: SECRET,
      ssl_verification: true,
      ca_file_path: '/etc/netbox/ferry-ca.pem',
    });
  });

  it('fires on every create, update and delete of a VM, an interface and a virtual disk', () => {
    expect(wantedEventRule('ferry', 12)).toEqual({
      name: 'ferry',
      enabled: true,
      object_types: ['virtualization.virtualmachine', 'virtualization.vminterface', 'virtualization.virtualdisk'],
      event_types: ['object_created', 'object_updated', 'object_deleted'],
      conditions: null,
      action_type: 'webhook',
      action_object_type: 'extras.webhook',
      action_object_id: 12,
    });
  });

  it("compares with NetBox's answer as NetBox writes it: lists in any order, choices by value, blank as null", () => {
    // An event rule as NetBox 4.7.3 answered it (object types in its own order, action_type as a choice).
    const read = {
      id: 1,
      name: 'ferry',
      enabled: true,
      object_types: ['virtualization.vminterface', 'virtualization.virtualmachine', 'virtualization.virtualdisk'],
      event_types: ['object_created', 'object_updated', 'object_deleted'],
      conditions: null,
      action_type: { value: 'webhook', label: 'Webhook' },
      action_object_type: 'extras.webhook',
      action_object_id: 12,
      description: '',
    };
    expect(differingFields(read, wantedEventRule('ferry', 12))).toEqual([]);
    expect(
      differingFields({ ...read, enabled: false, event_types: ['object_updated'] }, wantedEventRule('ferry', 13)),
    ).toEqual(['enabled', 'event_types', 'action_object_id']);
    const webhook = {
      ...wantedWebhook(config),
      id: 4,
      additional_headers: null,
      ca_file_path: '/etc/netbox/ferry-ca.pem',
    };
    expect(differingFields(webhook, wantedWebhook(config))).toEqual([]);
    expect(
      differingFields(
        { ...webhook, secret: 'old-secret-old-secret', payload_url: 'http://old/' },
        wantedWebhook(config),
      ),
    ).toEqual(['payload_url', 'secret']);
  });
});
