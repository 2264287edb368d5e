import { createHash, createHmac, randomBytes } from 'node:crypto';
import { ApiError, fail, paramError } from '../api-error';
import { permissionDenied } from '../access/permissions';
import type { SimTfaEntry } from '../access/user-config';
import type { Cluster } from '../cluster';
import type { RouteTable, SimRequest } from './types';

/**
 * Realms and second factors (pve-access-control's API2/Domains.pm, OpenId.pm and TFA.pm over
 * proxmox-tfa): the realms `pam` and `pve` of domains.cfg (the login form reads them unauthenticated),
 * the OpenID index, and each user's TFA entries (TfaInfo: `id`, `type`, `created`, `description` when
 * set, `enable` only when off). Recovery keys and TOTP (the code checked against the secret, RFC 6238)
 * can be added; a user other than root@pam confirms its password first, and no token may change TFA.
 */
function domainsDigest(cluster: Cluster): string {
  const text = [...cluster.access.realms]
    .map(([id, r]) => `${r.type}: ${id}\n${r.comment ? `\tcomment ${r.comment}\n` : ''}`)
    .join('\n');
  return createHash('sha1').update(text).digest('hex');
}

/** reauth_user_for_user_modification: root@pam's TFA only root changes; everyone else gives its password. */
function reauth(req: SimRequest): string {
  const userid = req.params.userid!;
  req.cluster.access.user(userid);
  if (userid === 'root@pam' && req.user !== 'root@pam') throw permissionDenied();
  if (req.user !== 'root@pam') {
    if (req.params.password === undefined) throw paramError({ password: 'password is required to modify user' });
    if (req.cluster.identities.get(req.user)?.secret !== req.params.password) throw fail('authentication failure');
  }
  return userid;
}

/** RFC 6238 TOTP (SHA1, 30 s, 6 digits) of a base32 secret, at a step offset. */
function totp(secret: string, offset = 0): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of secret.replace(/=+$/, '').toUpperCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000) + offset));
  const mac = createHmac('sha1', key).update(counter).digest();
  const at = mac[mac.length - 1]! & 0xf;
  return String((mac.readUInt32BE(at) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

const info = (e: SimTfaEntry) => ({
  id: e.id,
  type: e.type,
  ...(e.description ? { description: e.description } : {}),
  created: e.created,
  ...(e.enable ? {} : { enable: 0 }),
});

function entryOf(cluster: Cluster, userid: string, id: string): SimTfaEntry {
  const entry = cluster.access.tfa.get(userid)?.find((e) => e.id === id);
  if (!entry) throw new ApiError(404, `No such tfa entry '${id}'`);
  return entry;
}

function addTfa(req: SimRequest): Record<string, unknown> {
  const userid = reauth(req);
  const { cluster, params } = req;
  const entries = cluster.access.tfa.get(userid) ?? [];
  const created = Math.floor(Date.now() / 1000);
  let entry: SimTfaEntry;
  let answer: Record<string, unknown>;
  if (params.type === 'recovery') {
    if (entries.some((e) => e.type === 'recovery')) throw fail('user already has recovery keys');
    const keys = Array.from({ length: 10 }, () => (randomBytes(8).toString('hex').match(/.{4}/g) ?? []).join('-'));
    entry = { id: 'recovery', type: 'recovery', description: '', created, enable: true, recovery: keys };
    answer = { id: 'recovery', recovery: keys };
  } else if (params.type === 'totp') {
    const secret = /[?&]secret=([A-Z2-7]+)/i.exec(params.totp ?? '')?.[1];
    if (!secret) throw paramError({ totp: 'missing or invalid otpauth URI' });
    if (![-1, 0, 1].some((o) => totp(secret, o) === params.value)) throw fail('failed to verify TOTP challenge');
    entry = {
      id: `totp-${randomBytes(6).toString('hex')}`,
      type: 'totp',
      description: params.description ?? '',
      created,
      enable: true,
    };
    answer = { id: entry.id };
  } else throw fail(`adding a '${params.type}' entry is not simulated`);
  cluster.access.tfa.set(userid, [...entries, entry]);
  cluster.access.user(userid).keys = 'x'; // set_user_tfa_enabled
  return answer;
}

export const accessRealmRoutes: RouteTable = {
  'GET /access/domains': ({ cluster }) =>
    [...cluster.access.realms].map(([realm, r]) => ({
      realm,
      type: r.type,
      ...(r.comment ? { comment: r.comment } : {}),
      ...(r.default ? { default: 1 } : {}),
      ...(r.tfa ? { tfa: /type=(\w+)/.exec(r.tfa)?.[1] } : {}),
    })),

  'GET /access/domains/{realm}': ({ cluster, params }) => {
    const realm = cluster.access.realms.get(params.realm!);
    if (!realm) throw fail(`domain '${params.realm}' does not exist`);
    // The pam realm carries its plugin name (Auth/Plugin.pm parse_config adds it).
    return { ...realm, ...(realm.type === 'pam' ? { plugin: 'PVE::Auth::PAM' } : {}), digest: domainsDigest(cluster) };
  },

  'GET /access/openid': () => [{ subdir: 'auth-url' }, { subdir: 'login' }],

  'GET /access/tfa': (req) => {
    const { access } = req.cluster;
    const all = req.perm.has('/access/groups', ['User.Modify', 'Sys.Audit'], true);
    const members = new Set<string>();
    for (const [g, group] of access.groups)
      if (req.perm.has(`/access/groups/${g}`, ['User.Modify', 'Sys.Audit'], true))
        group.users.forEach((u) => members.add(u));
    return [...access.tfa.keys()]
      .sort()
      .filter((userid) => all || userid === req.user || members.has(userid))
      .map((userid) => ({ userid, entries: access.tfa.get(userid)!.map(info) }));
  },

  'GET /access/tfa/{userid}': ({ cluster, params }) => (cluster.access.tfa.get(params.userid!) ?? []).map(info),

  'POST /access/tfa/{userid}': addTfa,

  'GET /access/tfa/{userid}/{id}': ({ cluster, params }) => info(entryOf(cluster, params.userid!, params.id!)),

  'PUT /access/tfa/{userid}/{id}': (req) => {
    const userid = reauth(req);
    const entry = entryOf(req.cluster, userid, req.params.id!);
    if (req.params.description !== undefined) entry.description = req.params.description;
    if (req.params.enable !== undefined) entry.enable = req.params.enable === '1';
    return null;
  },

  'DELETE /access/tfa/{userid}/{id}': (req) => {
    const userid = reauth(req);
    entryOf(req.cluster, userid, req.params.id!);
    const left = req.cluster.access.tfa.get(userid)!.filter((e) => e.id !== req.params.id);
    if (left.length > 0) req.cluster.access.tfa.set(userid, left);
    else {
      req.cluster.access.tfa.delete(userid);
      delete req.cluster.access.user(userid).keys;
    }
    return null;
  },
};
