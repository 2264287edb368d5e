import type { Flavour } from '../schema/subset';

/**
 * PVE's privileges and built-in roles, as pve-access-control's AccessControl.pm defines them ($privgroups,
 * create_roles): each group's `root` privileges only Administrator has, `admin` ones go to PVE<Group>Admin
 * and PVEAdmin, `user` ones to PVE<Group>User (with the group's audit privileges), `audit` ones to
 * PVEAuditor too. PVEAdmin lacks Mapping.Modify; PVETemplateUser is VM.Clone and VM.Audit; Administrator
 * holds every privilege (with Permissions.Modify, in no group); NoAccess none. 8.4 is the stable-bookworm
 * branch (VM.Monitor, no VM.Replicate or VM.GuestAgent.*), 9.1 master.
 */
interface PrivilegeGroup {
  root: string[];
  admin: string[];
  user: string[];
  audit: string[];
}

const VM_ADMIN = [
  'VM.Config.Disk',
  'VM.Config.CPU',
  'VM.Config.Memory',
  'VM.Config.Network',
  'VM.Config.HWType',
  'VM.Config.Options',
  'VM.Allocate',
  'VM.Clone',
];

const VM_GROUP: Record<Flavour, PrivilegeGroup> = {
  '8.4': {
    root: [],
    admin: [...VM_ADMIN, 'VM.Migrate', 'VM.Monitor', 'VM.Snapshot', 'VM.Snapshot.Rollback'],
    user: ['VM.Config.CDROM', 'VM.Config.Cloudinit', 'VM.Console', 'VM.Backup', 'VM.PowerMgmt'],
    audit: ['VM.Audit'],
  },
  '9.1': {
    root: [],
    admin: [
      ...VM_ADMIN,
      'VM.GuestAgent.Unrestricted',
      'VM.Migrate',
      'VM.Replicate',
      'VM.Snapshot',
      'VM.Snapshot.Rollback',
    ],
    user: [
      'VM.Config.CDROM',
      'VM.Config.Cloudinit',
      'VM.Console',
      'VM.Backup',
      'VM.GuestAgent.FileRead',
      'VM.GuestAgent.FileSystemMgmt',
      'VM.GuestAgent.FileWrite',
      'VM.PowerMgmt',
    ],
    audit: ['VM.Audit', 'VM.GuestAgent.Audit'],
  },
};

const OTHER_GROUPS: Record<string, PrivilegeGroup> = {
  Sys: {
    root: ['Sys.PowerMgmt', 'Sys.Modify', 'Sys.Incoming', 'Sys.AccessNetwork'],
    admin: ['Sys.Console', 'Sys.Syslog'],
    user: [],
    audit: ['Sys.Audit'],
  },
  Datastore: {
    root: [],
    admin: ['Datastore.Allocate', 'Datastore.AllocateTemplate'],
    user: ['Datastore.AllocateSpace'],
    audit: ['Datastore.Audit'],
  },
  SDN: { root: [], admin: ['SDN.Allocate', 'SDN.Audit'], user: ['SDN.Use'], audit: ['SDN.Audit'] },
  User: {
    root: ['Realm.Allocate'],
    admin: ['User.Modify', 'Group.Allocate', 'Realm.AllocateUser'],
    user: [],
    audit: [],
  },
  Pool: { root: [], admin: ['Pool.Allocate'], user: ['Pool.Audit'], audit: ['Pool.Audit'] },
  Mapping: { root: [], admin: ['Mapping.Modify'], user: ['Mapping.Use'], audit: ['Mapping.Audit'] },
};

const groupsOf = (flavour: Flavour): Record<string, PrivilegeGroup> => ({ VM: VM_GROUP[flavour], ...OTHER_GROUPS });

/** Every valid privilege of a flavour (`$valid_privs`). */
export function validPrivileges(flavour: Flavour): Set<string> {
  const privs = new Set<string>(['Permissions.Modify']);
  for (const g of Object.values(groupsOf(flavour)))
    for (const p of [...g.root, ...g.admin, ...g.user, ...g.audit]) privs.add(p);
  return privs;
}

/** The special (built-in) roles and their privileges (create_roles). */
export function builtinRoles(flavour: Flavour): Map<string, Set<string>> {
  const roles = new Map<string, Set<string>>();
  const add = (role: string, privs: string[]) => {
    const set = roles.get(role) ?? new Set<string>();
    for (const p of privs) set.add(p);
    roles.set(role, set);
  };
  roles.set('NoAccess', new Set());
  roles.set('Administrator', validPrivileges(flavour));
  for (const [cat, g] of Object.entries(groupsOf(flavour))) {
    add(`PVE${cat}Admin`, [...g.admin, ...g.user, ...g.audit]);
    add('PVEAdmin', [...g.admin, ...g.user, ...g.audit]);
    if (g.user.length > 0) add(`PVE${cat}User`, [...g.user, ...g.audit]);
    add('PVEAuditor', g.audit);
  }
  roles.get('PVEAdmin')!.delete('Mapping.Modify');
  roles.set('PVETemplateUser', new Set(['VM.Clone', 'VM.Audit']));
  return roles;
}
