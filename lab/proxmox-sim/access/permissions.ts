import { ApiError } from '../api-error';
import type { Cluster } from '../cluster';
import { AccessConfig, type AclEntry } from './user-config';

/**
 * Permissions as pve-access-control computes them (AccessControl.pm roles, RPCEnvironment.pm permissions
 * and compile_acl_path): the roles of a user, group or token on each component of the path, a deeper
 * entry replacing what was inherited (a token's entries before the user's, the user's before its
 * groups'), an entry applying below its path only with `propagate`, NoAccess winning; a guest's or
 * storage's roles from its pool's ACL (`/pool/<id>`) where no own ACL entry set them; a privilege-separated
 * token only what both it and its user have; root@pam everything. A privilege maps to its propagate flag.
 */
export type Privileges = Record<string, number>;

/** raise_perm_exc: 403 "Permission check failed (<what>)". */
export const permissionDenied = (what?: string) =>
  new ApiError(403, `Permission check failed${what ? ` (${what})` : ''}`);

/** normalize_path: duplicate and trailing slashes gone, a leading one added; undefined if not a path. */
export function normalizePath(path: string | undefined): string | undefined {
  if (!path) return undefined;
  let p = path.replace(/\/+/g, '/').replace(/\/$/, '');
  if (!p) p = '/';
  if (!p.startsWith('/')) p = `/${p}`;
  return /^[A-Za-z0-9.\-_/]+$/.test(p) ? p : undefined;
}

/** AccessControl::roles: role → propagate flag for a user/token on a path (pools not considered). */
export function rolesOn(access: AccessConfig, id: string, path: string): Record<string, number> {
  const split = AccessConfig.splitTokenId(id);
  if (split) {
    const token = access.users.get(split.userid)?.tokens.get(split.tokenid);
    if (!token) return {};
    if (!token.privsep) return rolesOn(access, split.userid, path);
  }
  const parts = path === '/' ? [''] : path.split('/');
  let roles: Record<string, number> = {};
  let at = '';
  parts.forEach((part, i) => {
    at = part === '' ? '/' : at === '/' ? `/${part}` : `${at}/${part}`;
    const final = i === parts.length - 1;
    const here = access.acl.filter((e) => e.path === at && (final || e.propagate));
    const apply = (entries: AclEntry[]) => {
      if (entries.length === 0) return false;
      roles = Object.fromEntries(entries.map((e) => [e.roleid, e.propagate]));
      return true;
    };
    if (apply(here.filter((e) => e.type === 'token' && e.ugid === id))) return;
    if (apply(here.filter((e) => e.type === 'user' && e.ugid === id))) return;
    apply(here.filter((e) => e.type === 'group' && access.groups.get(e.ugid)?.users.has(id)));
  });
  return roles.NoAccess !== undefined ? { NoAccess: roles.NoAccess } : roles;
}

/** compile_acl_path's pool step: roles a guest or storage inherits from its pool's ACL. */
function poolRoles(cluster: Cluster, id: string, path: string): Record<string, number> | undefined {
  const vm = /^\/vms\/(\d+)$/.exec(path);
  const storage = /^\/storage\/([^/]+)$/.exec(path);
  const inherited: Record<string, number> = {};
  let found = false;
  for (const [poolid, pool] of cluster.pools) {
    const member = vm ? pool.vms.has(Number(vm[1])) : storage ? pool.storage.has(storage[1]!) : false;
    if (!member) continue;
    for (const role of Object.keys(rolesOn(cluster.access, id, `/pool/${poolid}`))) {
      inherited[role] = 0;
      found = true;
    }
  }
  return found ? inherited : undefined;
}

function privilegesOf(cluster: Cluster, id: string, path: string): Privileges {
  let roles = rolesOn(cluster.access, id, path);
  const fromPool = poolRoles(cluster, id, path);
  if (fromPool && roles.NoAccess === undefined) {
    if (fromPool.NoAccess !== undefined) roles = { NoAccess: 0 };
    else for (const role of Object.keys(fromPool)) roles[role] ??= 0;
  }
  const privs: Privileges = {};
  for (const [role, propagate] of Object.entries(roles))
    for (const priv of cluster.access.roles.get(role) ?? []) privs[priv] = privs[priv] || propagate;
  return privs;
}

/** RPCEnvironment::permissions: the privileges an authenticated id has on a path. */
export function permissionsOf(cluster: Cluster, id: string, path: string): Privileges {
  if (id === 'root@pam') return Object.fromEntries([...cluster.access.roles.get('Administrator')!].map((p) => [p, 1]));
  const split = AccessConfig.splitTokenId(id);
  if (split) {
    const token = cluster.access.users.get(split.userid)?.tokens.get(split.tokenid);
    if (!token) return {};
    const userPrivs = permissionsOf(cluster, split.userid, path);
    if (!token.privsep) return userPrivs;
    const own = privilegesOf(cluster, id, path);
    return Object.fromEntries(
      Object.entries(own)
        .filter(([p]) => userPrivs[p] !== undefined)
        .map(([p, prop]) => [p, userPrivs[p]! && prop]),
    );
  }
  if (!cluster.access.users.has(id)) return {};
  return privilegesOf(cluster, id, path);
}

/** The permission checks a request's handler makes for its caller (RPCEnvironment check, check_any…). */
export class PermissionChecker {
  /** Privileges by path, computed once per request (RPCEnvironment's aclcache lives as long). */
  private readonly cache = new Map<string, Privileges>();

  constructor(
    private readonly cluster: Cluster,
    readonly id: string,
  ) {}

  privileges(path: string): Privileges {
    let privs = this.cache.get(path);
    if (!privs) this.cache.set(path, (privs = permissionsOf(this.cluster, this.id, path)));
    return privs;
  }

  has(path: string, privs: string[], any = false): boolean {
    const have = this.privileges(path);
    return any ? privs.some((p) => have[p] !== undefined) : privs.every((p) => have[p] !== undefined);
  }

  /** check: every privilege, else 403 naming the first one missing. */
  check(path: string, privs: string[]): void {
    const have = this.privileges(path);
    const missing = privs.find((p) => have[p] === undefined);
    if (missing) throw permissionDenied(`${path}, ${missing}`);
  }

  /** check_any: one of them, else 403 naming them all. */
  checkAny(path: string, privs: string[]): void {
    if (!this.has(path, privs, true)) throw permissionDenied(`${path}, ${privs.join('|')}`);
  }

  checkFull(path: string, privs: string[], any: boolean): void {
    if (any) this.checkAny(path, privs);
    else this.check(path, privs);
  }

  /** check_vm_perm: the pool's ACL counts first (quietly), then the guest's. */
  checkVm(vmid: string | number, pool: string | undefined, privs: string[], any = false): void {
    if (pool && this.has(`/pool/${pool}`, privs, any)) return;
    this.checkFull(`/vms/${vmid}`, privs, any);
  }

  get isRoot(): boolean {
    return this.id === 'root@pam';
  }
}
