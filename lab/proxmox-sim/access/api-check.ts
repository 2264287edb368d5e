import type { Cluster } from '../cluster';
import { normalizePath, permissionDenied, type PermissionChecker } from './permissions';
import { AccessConfig } from './user-config';

/**
 * RPCEnvironment's check_api2_permissions, run on a method's `permissions` from the schema before its
 * parameters are verified (pve-manager's HTTPServer rest_handler): `world` needs nobody, root@pam passes
 * everything, a method without permissions is root@pam's only, `user: all` leaves the checks to the
 * handler, and a `check` is an and/or tree of `perm` (a path template filled from the request's
 * parameters), `userid-group`, `userid-param` and `perm-modify` tests.
 */
export interface SchemaPermissions {
  user?: string;
  check?: unknown[];
}

type Params = Record<string, unknown>;

const fill = (template: string, params: Params) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => (params[name] === undefined ? '' : String(params[name])));

export function checkApiPermissions(
  cluster: Cluster,
  perm: SchemaPermissions | undefined,
  checker: PermissionChecker | undefined,
  params: Params,
): void {
  if (!checker) {
    if (perm?.user === 'world') return;
    throw permissionDenied('user != null');
  }
  if (checker.isRoot) return;
  if (!perm) throw permissionDenied('user != root@pam');
  if (perm.user === 'all' || perm.user === 'world') return;
  if (perm.check) {
    runCheck(cluster, perm.check, checker, params, false);
    return;
  }
  throw permissionDenied();
}

function runCheck(
  cluster: Cluster,
  check: unknown[],
  checker: PermissionChecker,
  params: Params,
  quiet: boolean,
): boolean {
  const [test, ...rest] = check;
  try {
    switch (test) {
      case 'and':
        for (const sub of rest) runCheck(cluster, sub as unknown[], checker, params, false);
        return true;
      case 'or':
        if (rest.some((sub) => runCheck(cluster, sub as unknown[], checker, params, true))) return true;
        throw permissionDenied();
      case 'perm':
        return permTest(rest, checker, params);
      case 'userid-group':
        return useridGroup(cluster, rest, checker, params);
      case 'userid-param':
        return useridParam(cluster, rest[0] as string, checker, params);
      case 'perm-modify':
        return permModify(fill(rest[0] as string, params), checker);
      default:
        throw new Error(`unknown permission test ${String(test)}`);
    }
  } catch (err) {
    if (quiet) return false;
    throw err;
  }
}

function permTest(rest: unknown[], checker: PermissionChecker, params: Params): boolean {
  const [template, privs, ...options] = rest as [string, string[], ...unknown[]];
  const opts: Record<string, unknown> = {};
  for (let i = 0; i + 1 < options.length; i += 2) opts[options[i] as string] = options[i + 1];
  if (typeof opts.require_param === 'string' && params[opts.require_param] === undefined) throw permissionDenied();
  const path = normalizePath(fill(template, params)) ?? fill(template, params);
  checker.checkFull(path, privs, Boolean(opts.any));
  return true;
}

/** The groups the caller holds one of privs on (filter_groups), and their members (group_member_join). */
function allowedUsers(cluster: Cluster, checker: PermissionChecker, privs: string[]) {
  const groups = [...cluster.access.groups.keys()].filter((g) => checker.has(`/access/groups/${g}`, privs, true));
  const users = new Set(groups.flatMap((g) => [...cluster.access.groups.get(g)!.users]));
  return { groups: new Set(groups), users };
}

function useridGroup(cluster: Cluster, rest: unknown[], checker: PermissionChecker, params: Params): boolean {
  const [privs, ...options] = rest as [string[], ...unknown[]];
  const groupsParam = options[0] === 'groups_param' ? (options[1] as string) : undefined;
  const userid = String(params.userid ?? '');
  const checkExisting = groupsParam !== 'create';
  if (checkExisting) cluster.access.user(userid);
  if (checker.has('/access/groups', privs, true)) return true;
  const allowed = allowedUsers(cluster, checker, privs);
  if (groupsParam) {
    const wanted = String(params.groups ?? '')
      .split(/[,;\s]+/)
      .filter(Boolean);
    if (wanted.length === 0) throw permissionDenied(`/access/groups, ${privs.join('|')}`);
    for (const g of wanted)
      if (!allowed.groups.has(g)) throw permissionDenied(`/access/groups/${g}, ${privs.join('|')}`);
  }
  if (checkExisting && !allowed.users.has(userid)) throw permissionDenied();
  return true;
}

function useridParam(cluster: Cluster, subtest: string, checker: PermissionChecker, params: Params): boolean {
  const userid = String(params.userid ?? '');
  if (subtest === 'self') {
    cluster.access.user(userid);
    if (checker.id === userid) return true;
    throw permissionDenied();
  }
  const realm = userid.slice(userid.lastIndexOf('@') + 1);
  checker.check(`/access/realm/${realm}`, ['Realm.AllocateUser']);
  return true;
}

/** check_perm_modify: Permissions.Modify, or the object's own allocate privilege. */
function permModify(path: string, checker: PermissionChecker): boolean {
  const p = normalizePath(path);
  if (!p) return false;
  const privs = ['Permissions.Modify'];
  if (/^\/storage\/.+$/.test(p)) privs.push('Datastore.Allocate');
  else if (/^\/vms\/.+$/.test(p)) privs.push('VM.Allocate');
  else if (/^\/pool\/.+$/.test(p)) privs.push('Pool.Allocate');
  checker.checkAny(p, privs);
  return true;
}

/** A token's own id or its user's (tasks, ownership). */
export const ownerOf = (id: string) => AccessConfig.splitTokenId(id)?.userid ?? id;
