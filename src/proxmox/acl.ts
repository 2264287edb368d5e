import { type ProxmoxApi } from './api';
import { aclSchema, nullSchema } from './schemas';

/** ACL entries (`PUT /access/acl`); `ensure` writes only when an entry is missing or differs. */
export interface AclSpec {
  /** `/vms/100`, `/sdn/zones/<zone>/<vnet>`, `/storage/<id>`, … */
  path: string;
  roles: string[];
  users?: string[];
  groups?: string[];
  /** `user@realm!name` */
  tokens?: string[];
  propagate?: boolean;
}

export interface AclEntry {
  path: string;
  type: 'user' | 'group' | 'token';
  ugid: string;
  roleid: string;
  propagate: boolean;
}

export class AclApi {
  constructor(private readonly api: ProxmoxApi) {}

  async list(): Promise<AclEntry[]> {
    return (await this.api.call('GET', '/access/acl', {}, aclSchema)).map((e) => ({
      ...e,
      propagate: e.propagate ?? true,
    }));
  }

  async ensure(spec: AclSpec): Promise<{ changed: boolean }> {
    const propagate = spec.propagate ?? true;
    const entries = await this.list();
    const present = (type: AclEntry['type'], ugid: string, roleid: string) =>
      entries.some(
        (e) =>
          e.path === spec.path &&
          e.type === type &&
          e.ugid === ugid &&
          e.roleid === roleid &&
          e.propagate === propagate,
      );
    const wanted = subjects(spec).flatMap(([type, ugid]) => spec.roles.map((role) => [type, ugid, role] as const));
    if (wanted.every(([t, u, r]) => present(t, u, r))) return { changed: false };
    await this.write(spec, false);
    return { changed: true };
  }

  async remove(spec: AclSpec): Promise<{ changed: boolean }> {
    const entries = await this.list();
    const any = subjects(spec).some(([type, ugid]) =>
      entries.some((e) => e.path === spec.path && e.type === type && e.ugid === ugid && spec.roles.includes(e.roleid)),
    );
    if (!any) return { changed: false };
    await this.write(spec, true);
    return { changed: true };
  }

  private async write(spec: AclSpec, remove: boolean): Promise<void> {
    await this.api.call(
      'PUT',
      '/access/acl',
      {
        path: spec.path,
        roles: spec.roles.join(','),
        users: spec.users?.join(','),
        groups: spec.groups?.join(','),
        tokens: spec.tokens?.join(','),
        propagate: spec.propagate,
        delete: remove || undefined,
      },
      nullSchema,
    );
  }
}

function subjects(spec: AclSpec): Array<[AclEntry['type'], string]> {
  return [
    ...(spec.users ?? []).map((u) => ['user', u] as [AclEntry['type'], string]),
    ...(spec.groups ?? []).map((g) => ['group', g] as [AclEntry['type'], string]),
    ...(spec.tokens ?? []).map((t) => ['token', t] as [AclEntry['type'], string]),
  ];
}
