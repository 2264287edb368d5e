import { paramError } from '../api-error';
import { validPrivileges } from '../access/privileges';
import { userConfigWrite } from './access-users';
import type { RouteTable } from './types';

/**
 * Groups and roles (pve-access-control's API2/Group.pm and Role.pm): groups listed where the caller
 * holds User.Modify, Sys.Audit or Group.Allocate on them, with their members; roles with their
 * privileges (`special` for the built-in ones, which cannot be changed or deleted). Writes under
 * user.cfg's lock.
 */
const split = (v?: string) => (v ? v.split(/[,;\s]+/).filter(Boolean) : []);

export const accessGroupRoutes: RouteTable = {
  'GET /access/groups': (req) => {
    const { access } = req.cluster;
    return [...access.groups.keys()]
      .sort()
      .filter((g) => req.perm.has(`/access/groups/${g}`, ['User.Modify', 'Sys.Audit', 'Group.Allocate'], true))
      .map((groupid) => {
        const group = access.groups.get(groupid)!;
        return {
          groupid,
          ...(group.comment !== undefined ? { comment: group.comment } : {}),
          users: [...group.users].sort().join(','),
        };
      });
  },

  'POST /access/groups': ({ cluster, params }) =>
    userConfigWrite('create group failed', () => {
      const groupid = params.groupid!;
      if (cluster.access.groups.has(groupid)) throw new Error(`group '${groupid}' already exists`);
      cluster.access.groups.set(groupid, { users: new Set(), ...(params.comment ? { comment: params.comment } : {}) });
      return null;
    }),

  'GET /access/groups/{groupid}': ({ cluster, params }) => {
    const group = cluster.access.groups.get(params.groupid!);
    if (!group) throw new Error(`group '${params.groupid}' does not exist`);
    return { members: [...group.users], ...(group.comment !== undefined ? { comment: group.comment } : {}) };
  },

  'PUT /access/groups/{groupid}': ({ cluster, params }) =>
    userConfigWrite('update group failed', () => {
      const group = cluster.access.groups.get(params.groupid!);
      if (!group) throw new Error(`group '${params.groupid}' does not exist`);
      if (params.comment !== undefined) group.comment = params.comment;
      return null;
    }),

  'DELETE /access/groups/{groupid}': ({ cluster, params }) =>
    userConfigWrite('delete group failed', () => {
      const groupid = params.groupid!;
      const group = cluster.access.groups.get(groupid);
      if (!group) throw new Error(`group '${groupid}' does not exist`);
      for (const userid of group.users) cluster.access.users.get(userid)?.groups.delete(groupid);
      cluster.access.groups.delete(groupid);
      cluster.access.removeAcl('group', groupid);
      return null;
    }),

  'GET /access/roles': ({ cluster }) =>
    [...cluster.access.roles.keys()].sort().map((roleid) => ({
      roleid,
      privs: [...cluster.access.roles.get(roleid)!].sort().join(','),
      special: cluster.access.special.has(roleid) ? 1 : 0,
    })),

  'POST /access/roles': ({ cluster, params }) => {
    const roleid = params.roleid!;
    if (/^PVE/i.test(roleid))
      throw paramError({ roleid: "cannot use role ID starting with the (case-insensitive) 'PVE' namespace" });
    return userConfigWrite('create role failed', () => {
      if (cluster.access.roles.has(roleid)) throw new Error(`role '${roleid}' already exists`);
      const privs = checkedPrivs(cluster.flavour, params.privs);
      cluster.access.roles.set(roleid, new Set(privs));
      return null;
    });
  },

  'GET /access/roles/{roleid}': ({ cluster, params }) => {
    const privs = cluster.access.roles.get(params.roleid!);
    if (!privs) throw new Error(`role '${params.roleid}' does not exist`);
    return Object.fromEntries([...privs].sort().map((p) => [p, 1]));
  },

  'PUT /access/roles/{roleid}': ({ cluster, params }) => {
    const roleid = params.roleid!;
    if (cluster.access.special.has(roleid)) throw new Error(`auto-generated role '${roleid}' cannot be modified`);
    return userConfigWrite('update role failed', () => {
      const role = cluster.access.roles.get(roleid);
      if (!role) throw new Error(`role '${roleid}' does not exist`);
      const privs = checkedPrivs(cluster.flavour, params.privs);
      if (params.append !== '1') role.clear();
      for (const p of privs) role.add(p);
      return null;
    });
  },

  'DELETE /access/roles/{roleid}': ({ cluster, params }) => {
    const roleid = params.roleid!;
    if (cluster.access.special.has(roleid)) throw new Error(`auto-generated role '${roleid}' cannot be deleted`);
    return userConfigWrite('delete role failed', () => {
      if (!cluster.access.roles.delete(roleid)) throw new Error(`role '${roleid}' does not exist`);
      return null;
    });
  },
};

/** add_role_privs: every privilege must be valid ("invalid privilege 'x'"). */
function checkedPrivs(flavour: '8.4' | '9.1', list?: string): string[] {
  const valid = validPrivileges(flavour);
  const privs = split(list);
  for (const p of privs) if (!valid.has(p)) throw new Error(`invalid privilege '${p}'`);
  return privs;
}
