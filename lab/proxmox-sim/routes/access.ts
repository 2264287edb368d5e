import { randomBytes } from 'node:crypto';
import { ApiError, fail, paramError } from '../api-error';
import { ownerOf } from '../access/api-check';
import { normalizePath, permissionsOf } from '../access/permissions';
import type { AclEntry } from '../access/user-config';
import type { Cluster } from '../cluster';
import type { RouteTable, SimRequest } from './types';

/**
 * /access itself (pve-access-control's API2/AccessControl.pm and ACL.pm): the index, the ticket (a
 * password login or a ticket renewal; GET answers null for a login form), the ACL (listed where the
 * caller may audit or modify it; written as update_acl does, under user.cfg's lock) and the
 * permissions of a user or token, computed from the ACL (access/permissions.ts).
 */
const split = (v?: string) => (v ? v.split(/[,;\s]+/).filter(Boolean) : []);

/** AccessControl.pm's check_path: the paths an ACL entry may be set on. */
const N = '[A-Za-z0-9._-]+';
const ACL_PATH = new RegExp(
  `^(/|/access|/access/groups|/access/groups/${N}|/access/realm|/access/realm/${N}|/nodes|/nodes/${N}|` +
    `/pool|/pool/${N}(/${N}){0,2}|/sdn|/sdn/controllers|/sdn/controllers/[A-Za-z0-9_-]+|/sdn/dns|/sdn/dns/[A-Za-z0-9]+|` +
    `/sdn/fabrics|/sdn/fabrics/[A-Za-z0-9]+|/sdn/ipams|/sdn/ipams/[A-Za-z0-9]+|/sdn/prefix-lists|/sdn/prefix-lists/[A-Za-z0-9]+|` +
    `/sdn/route-maps|/sdn/route-maps/[A-Za-z0-9]+|/sdn/zones|/sdn/zones/${N}|/sdn/zones/${N}/${N}|/sdn/zones/${N}/${N}/[1-9][0-9]{0,3}|` +
    `/storage|/storage/${N}|/vms|/vms/[1-9][0-9]{2,}|/mapping|/mapping/${N}|/mapping/${N}/${N})$`,
);

/** check_perm_modify on a path, quietly. */
function mayModify(req: SimRequest, path: string): boolean {
  const privs = ['Permissions.Modify'];
  if (/^\/storage\/.+$/.test(path)) privs.push('Datastore.Allocate');
  else if (/^\/vms\/.+$/.test(path)) privs.push('VM.Allocate');
  else if (/^\/pool\/.+$/.test(path)) privs.push('Pool.Allocate');
  return req.perm.has(path, privs, true);
}

/** iterate_acl_tree's order: a path before the paths below it, children sorted by name. */
const aclOrder = (a: AclEntry, b: AclEntry) => {
  const pa = a.path === '/' ? [] : a.path.split('/').slice(1);
  const pb = b.path === '/' ? [] : b.path.split('/').slice(1);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) return pa[i]! < pb[i]! ? -1 : 1;
  if (pa.length !== pb.length) return pa.length - pb.length;
  const types = ['user', 'group', 'token'];
  return (
    types.indexOf(a.type) - types.indexOf(b.type) || a.ugid.localeCompare(b.ugid) || a.roleid.localeCompare(b.roleid)
  );
};

export const accessRoutes: RouteTable = {
  /** Needs no authentication. A valid ticket passed as `password` renews it (what clients do before expiry). */
  'POST /access/ticket': async ({ cluster, params }) => {
    const username =
      params.realm && !params.username!.includes('@') ? `${params.username}@${params.realm}` : params.username!;
    const user = cluster.identities.get(username);
    const renewing = cluster.tickets.get(params.password!);
    const valid =
      (user &&
        !user.id.includes('!') &&
        user.secret === params.password &&
        (user.tfa || cluster.access.active(user.id))) ||
      (renewing && renewing.userid === username && Date.now() - renewing.issuedMs <= cluster.settings.ticketLifetimeMs);
    if (!valid) {
      await new Promise((r) => setTimeout(r, cluster.settings.authFailureDelayMs)); // like every other 401
      throw new ApiError(401, 'authentication failure');
    }
    const hexTime = Math.floor(Date.now() / 1000)
      .toString(16)
      .toUpperCase();
    if (user?.tfa && !renewing) {
      // PVE answers a half ticket, usable only to send the second factor; the simulator accepts none.
      return {
        ticket: `PVE:!tfa!${encodeURIComponent('{"totp":true}')}:${hexTime}::${randomBytes(24).toString('base64')}`,
        CSRFPreventionToken: `${hexTime}:x`,
        username,
        NeedTFA: 1,
      };
    }
    const ticket = `PVE:${username}:${hexTime}::${randomBytes(24).toString('base64')}`;
    const csrf = `${hexTime}:${randomBytes(16).toString('base64')}`;
    cluster.tickets.set(ticket, { userid: username, issuedMs: Date.now(), csrf });
    return { ticket, CSRFPreventionToken: csrf, username, clustername: cluster.name };
  },

  'GET /access': () =>
    ['users', 'groups', 'roles', 'acl', 'domains', 'openid', 'tfa', 'ticket', 'password'].map((subdir) => ({ subdir })),

  /** A login form's dummy read. */
  'GET /access/ticket': () => null,

  'GET /access/acl': (req) => {
    const audit = req.perm.has('/access', ['Sys.Audit']);
    return [...req.cluster.acl]
      .sort(aclOrder)
      .filter((e) => audit || mayModify(req, e.path))
      .map((e) => ({ path: e.path, type: e.type, ugid: e.ugid, roleid: e.roleid, propagate: e.propagate }));
  },

  'PUT /access/acl': (req) => {
    const { params } = req;
    if (!params.users && !params.groups && !params.tokens) {
      const message = "either 'users', 'groups' or 'tokens' is required.";
      throw paramError({ users: message, groups: message, tokens: message });
    }
    const path = normalizePath(params.path);
    if (!path || (params.delete !== '1' && !ACL_PATH.test(path)))
      throw paramError({ path: `invalid ACL path '${params.path}'` });
    try {
      updateAcl(req, path);
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) throw err;
      throw fail(`ACL update failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return null;
  },

  'GET /access/permissions': (req) => {
    const userid = req.params.userid ?? req.user;
    if (userid !== req.user && ownerOf(userid) !== req.user) req.perm.check('/access', ['Sys.Audit']);
    if (req.params.path) return { [req.params.path]: permissionsOf(req.cluster, userid, req.params.path) };
    return effectivePermissions(req.cluster, userid);
  },
};

/** update_acl: each role checked against the caller's privileges unless it has Permissions.Modify. */
function updateAcl(req: SimRequest, path: string): void {
  const { cluster, params } = req;
  const own = req.perm.privileges(path);
  const propagate = params.propagate === '0' ? 0 : 1;
  const remove = params.delete === '1';
  for (const role of split(params.roles)) {
    const privs = cluster.access.roles.get(role);
    if (!privs) throw new Error(`role '${role}' does not exist`);
    if (own['Permissions.Modify'] === undefined) {
      const verb = remove ? 'remove' : 'add';
      for (const priv of privs) {
        if (own[priv] === undefined)
          throw paramError({
            role: `Cannot ${verb} role '${role}' - requires 'Permissions.Modify' or superset of privileges.`,
          });
        if (propagate && own[priv] !== propagate && !remove)
          throw paramError({
            role: `Cannot ${verb} role '${role}' with propagation - requires 'Permissions.Modify' or propagated superset of privileges.`,
          });
      }
      if (role === 'NoAccess')
        throw paramError({ role: `Cannot ${verb} role '${role}' - requires 'Permissions.Modify'` });
    }
    const subjects: Array<[AclEntry['type'], string]> = [];
    for (const group of split(params.groups)) {
      if (!cluster.access.groups.has(group)) throw new Error(`group '${group}' does not exist`);
      subjects.push(['group', group]);
    }
    for (const user of split(params.users)) {
      if (!cluster.access.users.has(user)) throw new Error(`user '${user}' does not exist`);
      subjects.push(['user', user]);
    }
    for (const token of split(params.tokens)) {
      const [userid, tokenid] = token.split('!');
      cluster.access.token(userid!, tokenid ?? '');
      subjects.push(['token', token]);
    }
    for (const [type, ugid] of subjects) setAclEntry(cluster, { path, type, ugid, roleid: role, propagate }, remove);
  }
}

function setAclEntry(cluster: Cluster, entry: AclEntry, remove: boolean): void {
  const at = cluster.acl.findIndex(
    (e) => e.path === entry.path && e.type === entry.type && e.ugid === entry.ugid && e.roleid === entry.roleid,
  );
  if (at >= 0) cluster.acl.splice(at, 1);
  if (!remove) cluster.acl.push(entry);
}

/** get_effective_permissions: the top-level paths, every ACL path and every pool member's path. */
function effectivePermissions(cluster: Cluster, userid: string): Record<string, Record<string, number>> {
  const paths = new Set(['/', '/access', '/access/groups', '/nodes', '/pool', '/sdn', '/storage', '/vms']);
  for (const e of cluster.acl) paths.add(e.path);
  for (const pool of cluster.pools.values()) {
    for (const vmid of pool.vms) paths.add(`/vms/${vmid}`);
    for (const sid of pool.storage) paths.add(`/storage/${sid}`);
  }
  const result: Record<string, Record<string, number>> = {};
  for (const path of [...paths].sort()) {
    const privs = permissionsOf(cluster, userid, path);
    if (Object.keys(privs).length > 0) result[path] = privs;
  }
  return result;
}
