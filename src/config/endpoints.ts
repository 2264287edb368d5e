import { z } from 'zod';
import { ALWAYS, dnsName, hostName, port, tlsFields } from './common';
import { netboxWebhookSection } from './netbox-webhook';

/**
 * Connection settings of the outside systems. Secrets (token secrets, passwords) are read from the
 * environment only and stay in the worker: workflow inputs name endpoints, never carry credentials.
 */
export const proxmoxSection = z
  .object({
    host: hostName,
    port: port.default(8006),
    /** `user@realm`, e.g. `ferry@pve` or `root@pam`. */
    user: z.string().regex(/^[^@\s]+@[^@\s!]+$/, 'user@realm, e.g. ferry@pve'),
    /** `token` (default): PVEAPIToken with tokenId + PROXMOX_TOKEN_SECRET. `ticket`: PROXMOX_PASSWORD. */
    auth: z.enum(['token', 'ticket']).default('token'),
    tokenId: z.string().min(1).optional(),
    tokenSecret: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    /**
     * PVE lets only root@pam import from, or attach, a file by its path (a vMotioned VMDK sits in a
     * per-VM folder, which `STORAGE:import/…` cannot name). This credential is used for those two steps
     * only, with a ticket; its password comes from PROXMOX_PRIVILEGED_PASSWORD. Without it, such a
     * cutover stops with a message saying so.
     */
    privilegedUser: z
      .string()
      .regex(/^[^@\s]+@[^@\s!]+$/, 'user@realm, e.g. root@pam')
      .default('root@pam'),
    privilegedPassword: z.string().min(1).optional(),
    ...tlsFields,
  })
  .strict()
  .superRefine((p, ctx) => {
    // Reported as missing values, with the variable to set (see missing.ts). Run even when other keys
    // are wrong (ALWAYS), so one pass lists every problem: the values may then be of any type.
    if (typeof p !== 'object' || p === null) return; // the section's type error says it
    const auth = p.auth ?? 'token';
    if (auth === 'token' && !p.tokenId)
      ctx.addIssue({ code: 'custom', path: ['tokenId'], message: 'token auth needs it' });
    if (auth === 'token' && !p.tokenSecret)
      ctx.addIssue({ code: 'custom', path: ['tokenSecret'], message: 'token auth needs it' });
    if (auth === 'ticket' && !p.password)
      ctx.addIssue({ code: 'custom', path: ['password'], message: 'ticket auth needs it' });
  }, ALWAYS);

/**
 * What `discover` reads by default: a datacenter, and within it VM folders and clusters: inventory paths
 * (`/DC0/vm/apps`, as every command takes them) or paths below the datacenter's VM and host folders.
 */
export const vsphereDiscoverySection = z
  .object({
    datacenter: z.string().min(1).optional(),
    folders: z.array(z.string().min(1)).default([]),
    clusters: z.array(z.string().min(1)).default([]),
    /** Objects per PropertyCollector page (RetrievePropertiesEx maxObjects). */
    pageSize: z.number().int().min(1).max(10_000).default(500),
  })
  .strict()
  .refine(
    (d) =>
      typeof d !== 'object' ||
      d === null ||
      d.datacenter !== undefined ||
      [...(d.folders ?? []), ...(d.clusters ?? [])].every((p) => typeof p === 'string' && p.startsWith('/')),
    {
      message:
        'folders and clusters relative to a datacenter need it: set discovery.datacenter too, or give them as inventory paths (/DC0/vm/apps)',
      ...ALWAYS,
    },
  );

export const vsphereSection = z
  .object({
    host: hostName,
    port: port.default(443),
    /**
     * The vCenter's name in workflow ids (`migrate-<name>-<moid>`); default: host. Keep it stable: a
     * new name means new ids, and VMs migrated under the old one would not be recognised.
     */
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash, underscore')
      .optional(),
    user: z.string().min(1),
    password: z.string().min(1, 'set VMWARE_PASSWORD'),
    ...tlsFields,
    discovery: vsphereDiscoverySection.default({ folders: [], clusters: [], pageSize: 500 }),
  })
  .strict();

export const netboxSection = z
  .object({
    /**
     * NetBox's name in workflow ids (`provision-<name>-<netboxId>`); default none (`provision-<netboxId>`).
     * Set it when one Temporal namespace serves several NetBoxes (or a NetBox whose ids start over, as
     * the lab's does each run); keep it stable.
     */
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash, underscore')
      .optional(),
    url: z.url({ protocol: /^https?$/, error: 'an http(s) URL such as https://netbox.example.com' }),
    /** v1 (40 hex, sent as `Token …`) or v2 (`nbt_KEY.TOKEN`, sent as `Bearer …`); from NETBOX_TOKEN. */
    token: z.string().min(1, 'set NETBOX_TOKEN'),
    /** Plain http to a host other than this one sends the token in clear: only when explicitly allowed. */
    allowInsecureHttp: z.boolean().optional(),
    ...tlsFields,
    /** NetBox's webhook and event rule that report edits to ferry's receiver (see netbox-webhook.ts). */
    webhook: netboxWebhookSection.optional(),
  })
  .strict()
  .superRefine((n, ctx) => {
    // Run even when other keys are wrong (a missing token, say), so the URL's problems come in the same pass.
    if (typeof n !== 'object' || n === null) return; // the section's type error says it
    let url: URL;
    try {
      url = new URL(String(n.url));
    } catch {
      return; // not a URL at all: the url key's own check says so
    }
    if (url.username || url.password) {
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: 'no credentials in the URL: the token comes from NETBOX_TOKEN',
      });
    }
    if (url.search || url.hash) {
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message:
          'no query string or fragment in the URL (a token there would be logged and sent to every page): the token comes from NETBOX_TOKEN',
      });
    }
    if (url.protocol === 'http:' && !isLoopback(url.hostname) && n.allowInsecureHttp !== true) {
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: 'http:// would send the NetBox token unencrypted: use https://, or set netbox.allowInsecureHttp: true',
      });
    }
  }, ALWAYS);

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export const dnsSection = z
  .object({
    /** Primary server that accepts RFC 2136 updates. */
    server: hostName,
    port: port.default(53),
    tsigKeyName: z.string().min(1),
    tsigAlgorithm: z.enum(['hmac-sha256', 'hmac-sha512']).default('hmac-sha256'),
    /** Base64 TSIG secret, from FERRY_DNS_TSIG_SECRET. */
    tsigSecret: z
      .string()
      .min(1, 'set FERRY_DNS_TSIG_SECRET')
      .regex(/^\s*[A-Za-z0-9+/]+={0,2}\s*$/, 'the TSIG secret must be base64, as tsig-keygen prints it'),
    /**
     * Zones ferry updates (forward and reverse, e.g. `lab.example.com`, `2.0.192.in-addr.arpa`); a name
     * goes to the most specific zone holding it. Empty: the zone is found by asking the server (SOA).
     */
    zones: z.array(dnsName).default([]),
    /** TTL of the records ferry writes, in seconds. */
    ttl: z.number().int().min(0).max(2_147_483_647).default(300),
  })
  .strict();

/** The OpenSSH known_hosts file teardown cleans of a VM's names and addresses. */
export const knownHostsSection = z
  .object({
    file: z.string().min(1),
    /** SSH ports whose `[host]:port` entries are removed too; 22 is the plain `host` form. */
    ports: z.array(port).min(1).default([22]),
  })
  .strict();
