import { randomUUID } from 'node:crypto';
import { fail, paramError } from '../api-error';
import type { SimUser } from '../access/user-config';
import type { Cluster } from '../cluster';
import type { RouteTable, SimRequest } from './types';

/**
 * Users and their API tokens (pve-access-control's API2/User.pm): listed as the caller may see them,
 * read, created (with a password for the `pve` realm), updated, deleted with their tokens, group
 * memberships, ACL entries and TFA; tokens generated (a UUID secret, shown once), updated (optionally
 * regenerated) and removed. Writes run under user.cfg's lock, so errors read "<what> failed: …".
 */
const split = (v?: string) => (v ? v.split(/[,;\s]+/).filter(Boolean) : []);

/** lock_user_config: an error inside reads "<errmsg>: <reason>". */
export function userConfigWrite<T>(errmsg: string, write: () => T): T {
  try {
    return write();
  } catch (err) {
    if (err instanceof Error && 'status' in err && (err as { status: number }).status === 400) throw err;
    throw fail(`${errmsg}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** $extract_user_data: the user.cfg fields, with `full` the groups (sorted) and the tokens as user.cfg has them. */
function userData(user: SimUser, full: boolean): Record<string, unknown> {
  const res: Record<string, unknown> = {};
  for (const key of ['enable', 'expire', 'firstname', 'lastname', 'email', 'comment', 'keys'] as const)
    if (user[key] !== undefined) res[key] = user[key];
  if (!full) return res;
  res.groups = [...user.groups].sort();
  // `$res->{tokens} = $data->{tokens}`: null for a user without tokens.
  res.tokens = user.tokens.size > 0 ? Object.fromEntries([...user.tokens].map(([id, t]) => [id, { ...t }])) : null;
  return res;
}

/** The users the caller may list: all with User.Modify or Sys.Audit on /access/groups, else its groups' members and itself. */
function visibleUsers(req: SimRequest): (userid: string) => boolean {
  const privs = ['User.Modify', 'Sys.Audit'];
  if (req.perm.has('/access/groups', privs, true)) return () => true;
  const allowed = new Set<string>();
  for (const [g, group] of req.cluster.access.groups)
    if (req.perm.has(`/access/groups/${g}`, privs, true)) for (const u of group.users) allowed.add(u);
  return (userid) => userid === req.user || allowed.has(userid);
}

function setFields(user: SimUser, params: Record<string, string>, creating: boolean): void {
  for (const key of ['firstname', 'lastname', 'email', 'comment', 'keys'] as const) {
    const value = params[key];
    if (value === undefined || (creating && value === '')) continue;
    user[key] = value;
  }
  if (params.enable !== undefined) user.enable = Number(params.enable);
  if (params.expire !== undefined && (!creating || params.expire !== '0')) user.expire = Number(params.expire);
}

function tokenAnswer(cluster: Cluster, userid: string, tokenid: string) {
  const token = cluster.access.token(userid, tokenid);
  return { ...token };
}

export const accessUserRoutes: RouteTable = {
  'GET /access/users': (req) => {
    const { cluster, params } = req;
    const visible = visibleUsers(req);
    const full = params.full === '1';
    return [...cluster.access.users.keys()]
      .sort()
      .filter(visible)
      .flatMap((userid) => {
        const user = cluster.access.users.get(userid)!;
        if (params.enabled !== undefined && Boolean(user.enable) !== (params.enabled === '1')) return [];
        const entry = userData(user, full);
        if (full) {
          // index joins the groups (an empty list too) and turns defined tokens into a list; none stays null.
          entry.groups = (entry.groups as string[]).join(',');
          if (entry.tokens !== null)
            entry.tokens = [...user.tokens.keys()].sort().map((tokenid) => ({ tokenid, ...user.tokens.get(tokenid) }));
        }
        const realm = userid.slice(userid.lastIndexOf('@') + 1);
        const realmType = cluster.access.realms.get(realm)?.type;
        return [{ ...entry, ...(realmType ? { 'realm-type': realmType } : {}), userid }];
      });
  },

  'POST /access/users': ({ cluster, params }) =>
    userConfigWrite('create user failed', () => {
      const userid = params.userid!;
      if (cluster.access.users.has(userid)) throw new Error(`user '${userid}' already exists`);
      const realm = userid.slice(userid.lastIndexOf('@') + 1);
      if (!cluster.access.realms.has(realm)) throw new Error(`authentication domain '${realm}' does not exist`);
      if (params.password !== undefined) {
        if (realm !== 'pve') throw new Error(`setting password for '${realm}' realm is not supported`);
        cluster.identities.set(userid, { id: userid, role: 'audit', secret: params.password });
      }
      const user = cluster.access.addUser(userid);
      setFields(user, params, true);
      for (const group of split(params.groups)) {
        if (!cluster.access.groups.has(group)) {
          cluster.access.users.delete(userid);
          throw new Error(`no such group '${group}'`);
        }
        cluster.access.joinGroup(userid, group);
      }
      return null;
    }),

  'GET /access/users/{userid}': ({ cluster, params }) => userData(cluster.access.user(params.userid!), true),

  'PUT /access/users/{userid}': ({ cluster, params }) =>
    userConfigWrite('update user failed', () => {
      const userid = params.userid!;
      const user = cluster.access.user(userid);
      if (params.append !== '1' && params.groups !== undefined) cluster.access.leaveGroups(userid);
      for (const group of split(params.groups)) cluster.access.joinGroup(userid, group);
      setFields(user, params, false);
      return null;
    }),

  'DELETE /access/users/{userid}': ({ cluster, params }) =>
    userConfigWrite('delete user failed', () => {
      const userid = params.userid!;
      const user = cluster.access.user(userid);
      for (const tokenid of user.tokens.keys()) cluster.identities.delete(`${userid}!${tokenid}`);
      cluster.identities.delete(userid);
      cluster.access.leaveGroups(userid);
      cluster.access.removeAcl('user', userid);
      cluster.access.tfa.delete(userid);
      cluster.access.users.delete(userid);
      return null;
    }),

  'GET /access/users/{userid}/tfa': ({ cluster, params }) => {
    const userid = params.userid!;
    const realm = cluster.access.realms.get(userid.slice(userid.lastIndexOf('@') + 1));
    if (!realm) throw fail(`auth domain '${userid.slice(userid.lastIndexOf('@') + 1)}' does not exist`);
    const entries = cluster.access.tfa.get(userid) ?? [];
    const res: Record<string, unknown> = {};
    if (realm.tfa) res.realm = /type=(\w+)/.exec(realm.tfa)?.[1];
    if (params.multiple === '1') res.user = [...new Set(entries.map((e) => e.type))];
    return res;
  },

  'GET /access/users/{userid}/token': ({ cluster, params }) => {
    const user = cluster.access.user(params.userid!);
    return [...user.tokens].map(([tokenid, token]) => ({ ...token, tokenid }));
  },

  'GET /access/users/{userid}/token/{tokenid}': ({ cluster, params }) =>
    tokenAnswer(cluster, params.userid!, params.tokenid!),

  'POST /access/users/{userid}/token/{tokenid}': ({ cluster, params }) => {
    const userid = params.userid!;
    const tokenid = params.tokenid!;
    const user = cluster.access.user(userid);
    if (user.tokens.has(tokenid)) throw paramError({ tokenid: 'Token already exists.' });
    const fullTokenid = `${userid}!${tokenid}`;
    const value = randomUUID();
    // The answer echoes the parameters as they came (strings); user.cfg keeps them as numbers.
    const info: Record<string, unknown> = { privsep: params.privsep ?? 1 };
    if (params.expire !== undefined) info.expire = params.expire;
    if (params.comment) info.comment = params.comment;
    user.tokens.set(tokenid, {
      privsep: Number(params.privsep ?? 1) ? 1 : 0,
      expire: Number(params.expire ?? 0),
      ...(params.comment ? { comment: params.comment } : {}),
    });
    cluster.identities.set(fullTokenid, { id: fullTokenid, role: 'audit', secret: value });
    return { info, value, 'full-tokenid': fullTokenid };
  },

  'PUT /access/users/{userid}/token/{tokenid}': ({ cluster, params }) => {
    const userid = params.userid!;
    const tokenid = params.tokenid!;
    const token = cluster.access.token(userid, tokenid);
    return userConfigWrite('updating token info failed', () => {
      if (params.privsep !== undefined) token.privsep = Number(params.privsep);
      if (params.expire !== undefined) token.expire = Number(params.expire);
      if (params.comment !== undefined) token.comment = params.comment;
      if (!token.comment) delete token.comment;
      for (const key of split(params.delete)) {
        if (key !== 'comment') throw paramError({ delete: `unknown option '${key}'` });
        delete token.comment;
      }
      // The answer holds the token as this request left it: the parameters it set as they came (strings).
      const res: Record<string, unknown> = { ...token };
      for (const key of ['privsep', 'expire'] as const) if (params[key] !== undefined) res[key] = params[key];
      if (params.regenerate === '1') {
        const fullTokenid = `${userid}!${tokenid}`;
        res.value = randomUUID();
        res['full-tokenid'] = fullTokenid;
        cluster.identities.set(fullTokenid, { id: fullTokenid, role: 'audit', secret: res.value as string });
      }
      return res;
    });
  },

  'DELETE /access/users/{userid}/token/{tokenid}': ({ cluster, params }) => {
    const userid = params.userid!;
    const tokenid = params.tokenid!;
    cluster.access.token(userid, tokenid);
    return userConfigWrite('deleting token failed', () => {
      const fullTokenid = `${userid}!${tokenid}`;
      cluster.access.users.get(userid)!.tokens.delete(tokenid);
      cluster.identities.delete(fullTokenid);
      cluster.access.removeAcl('token', fullTokenid);
      return null;
    });
  },
};
