import { randomBytes } from 'node:crypto';
import { ApiError, fail, paramError } from '../api-error';
import type { AclEntry } from '../cluster';
import type { RouteTable } from './types';

/** /access/ticket (password or ticket renewal) and /access/acl (entries for users, groups and API tokens). */
const ACL_PATH =
  /^\/(|vms(\/\d+)?|storage(\/[\w.-]+)?|nodes(\/[\w.-]+)?|pool(\/[\w.-]+)*|sdn(\/zones(\/\w+(\/\w+(\/\d+)?)?)?)?|access(\/(groups|realm)(\/[\w.-]+)?)?|mapping(\/[\w.-]+)*)$/;
const split = (v?: string) => (v ? v.split(/[,;\s]+/).filter(Boolean) : []);

export const accessRoutes: RouteTable = {
  /** Needs no authentication. A valid ticket passed as `password` renews it (what clients do before expiry). */
  'POST /access/ticket': async ({ cluster, params }) => {
    const username =
      params.realm && !params.username!.includes('@') ? `${params.username}@${params.realm}` : params.username!;
    const user = cluster.identities.get(username);
    const renewing = cluster.tickets.get(params.password!);
    const valid =
      (user && !user.id.includes('!') && user.secret === params.password) ||
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

  'GET /access/acl': (req) => req.cluster.acl.map((e) => ({ ...e })),

  'PUT /access/acl': (req) => {
    const { cluster, params } = req;
    const users = split(params.users);
    const groups = split(params.groups);
    const tokens = split(params.tokens);
    if (users.length + groups.length + tokens.length === 0) {
      const message = "either 'users', 'groups' or 'tokens' is required.";
      throw paramError({ users: message, groups: message, tokens: message });
    }
    if (!ACL_PATH.test(params.path!)) throw fail(`invalid ACL path '${params.path}'`);
    const roles = split(params.roles);
    for (const role of roles) if (!cluster.roles.includes(role)) throw fail(`role '${role}' does not exist`);
    for (const user of users) if (!cluster.identities.has(user)) throw fail(`user '${user}' does not exist`);
    for (const token of tokens) if (!cluster.identities.has(token)) throw fail(`no such token '${token}'`);
    for (const group of groups) if (!cluster.groups.has(group)) throw fail(`group '${group}' does not exist`);
    const subjects: Array<[AclEntry['type'], string]> = [
      ...users.map((u) => ['user', u] as [AclEntry['type'], string]),
      ...groups.map((g) => ['group', g] as [AclEntry['type'], string]),
      ...tokens.map((t) => ['token', t] as [AclEntry['type'], string]),
    ];
    for (const [type, ugid] of subjects) {
      for (const roleid of roles) {
        const index = cluster.acl.findIndex(
          (e) => e.path === params.path && e.type === type && e.ugid === ugid && e.roleid === roleid,
        );
        if (index >= 0) cluster.acl.splice(index, 1);
        if (params.delete !== '1')
          cluster.acl.push({ path: params.path!, type, ugid, roleid, propagate: params.propagate === '0' ? 0 : 1 });
      }
    }
    return null;
  },
};
