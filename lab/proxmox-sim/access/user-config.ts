import { fail } from '../api-error';
import type { Flavour } from '../schema/subset';
import { builtinRoles } from './privileges';

/**
 * user.cfg as pve-access-control parses it (parse_user_config): users with their groups and API tokens,
 * groups with their members, roles (the built-in ones forced in by userconfig_force_defaults, custom ones
 * beside), and the ACL entries (kept flat, as user.cfg's `acl:` lines are). Passwords and token secrets
 * are not here (PVE keeps them in shadow files): the simulator's credential store is Cluster.identities.
 * Values are typed as the parser leaves them: `enable`, `expire` and `privsep` integers.
 */
export interface SimToken {
  privsep: number;
  expire: number;
  comment?: string;
}

export interface SimUser {
  enable: number;
  expire: number;
  firstname?: string;
  lastname?: string;
  email?: string;
  comment?: string;
  keys?: string;
  groups: Set<string>;
  tokens: Map<string, SimToken>;
}

export interface SimGroup {
  comment?: string;
  users: Set<string>;
}

export interface AclEntry {
  path: string;
  type: 'user' | 'group' | 'token';
  ugid: string;
  roleid: string;
  propagate: number;
}

/** An authentication realm (domains.cfg): `pam` and `pve` exist on every node. */
export interface SimRealm {
  type: string;
  comment?: string;
  default?: number;
  tfa?: string;
}

/** One TFA entry of a user (priv/tfa.cfg through proxmox-tfa's TfaInfo). */
export interface SimTfaEntry {
  id: string;
  type: 'totp' | 'recovery' | 'webauthn' | 'u2f' | 'yubico';
  description: string;
  created: number;
  enable: boolean;
  /** Recovery keys still unused (recovery entries only). */
  recovery?: string[];
}

export class AccessConfig {
  readonly users = new Map<string, SimUser>();
  readonly groups = new Map<string, SimGroup>();
  readonly roles: Map<string, Set<string>>;
  readonly special: Set<string>;
  readonly acl: AclEntry[] = [];
  readonly realms = new Map<string, SimRealm>([
    ['pam', { type: 'pam', comment: 'Linux PAM standard authentication' }],
    ['pve', { type: 'pve', comment: 'Proxmox VE authentication server' }],
  ]);
  readonly tfa = new Map<string, SimTfaEntry[]>();

  constructor(readonly flavour: Flavour) {
    this.roles = builtinRoles(flavour);
    this.special = new Set(this.roles.keys());
    this.addUser('root@pam', { email: 'root@ferrylab.example' });
  }

  addUser(userid: string, fields: Partial<Omit<SimUser, 'groups' | 'tokens'>> = {}): SimUser {
    const user: SimUser = { enable: 1, expire: 0, ...fields, groups: new Set(), tokens: new Map() };
    this.users.set(userid, user);
    return user;
  }

  /** check_user_exist: "no such user ('<userid>')". */
  user(userid: string): SimUser {
    const user = this.users.get(userid);
    if (!user) throw fail(`no such user ('${userid}')`);
    return user;
  }

  /** check_token_exist: "no such token '<token>' for user '<userid>'". */
  token(userid: string, tokenid: string): SimToken {
    const token = this.user(userid).tokens.get(tokenid);
    if (!token) throw fail(`no such token '${tokenid}' for user '${userid}'`);
    return token;
  }

  /** A token id's user and token name (`user@realm!name`), or undefined for a user id. */
  static splitTokenId(id: string): { userid: string; tokenid: string } | undefined {
    const m = /^(.+)!([A-Za-z][A-Za-z0-9.\-_]+)$/.exec(id);
    return m ? { userid: m[1]!, tokenid: m[2]! } : undefined;
  }

  /** Whether an authenticated id may act now: user enabled and unexpired, a token existing and unexpired. */
  active(id: string, nowS = Math.floor(Date.now() / 1000)): boolean {
    const split = AccessConfig.splitTokenId(id);
    const user = this.users.get(split?.userid ?? id);
    if (!user || !user.enable || (user.expire && user.expire < nowS)) return false;
    if (!split) return true;
    const token = user.tokens.get(split.tokenid);
    return token !== undefined && !(token.expire && token.expire < nowS);
  }

  joinGroup(userid: string, groupid: string): void {
    const group = this.groups.get(groupid);
    if (!group) throw fail(`no such group '${groupid}'`);
    group.users.add(userid);
    this.user(userid).groups.add(groupid);
  }

  /** delete_user_group: the user leaves every group. */
  leaveGroups(userid: string): void {
    for (const group of this.groups.values()) group.users.delete(userid);
    this.users.get(userid)?.groups.clear();
  }

  /** delete_user_acl / delete_group_acl: the subject's ACL entries go. */
  removeAcl(type: AclEntry['type'], ugid: string): void {
    for (let i = this.acl.length - 1; i >= 0; i--) {
      const e = this.acl[i]!;
      if (
        (e.type === type && e.ugid === ugid) ||
        (type === 'user' && e.type === 'token' && e.ugid.startsWith(`${ugid}!`))
      )
        this.acl.splice(i, 1);
    }
  }
}
