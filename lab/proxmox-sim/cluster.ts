import { createHash, randomBytes } from 'node:crypto';
import { fail } from './api-error';
import { FileLock } from './flock';
import { defaultNodeHardware, type NodeHardware } from './node-hardware';
import { Storages, type StorageSpec } from './storage';
import { Tasks } from './tasks';
import type { Flavour } from './schema/subset';
import type { VmFirewall } from './vm-firewall';
import { AccessConfig, type AclEntry } from './access/user-config';

export type { AclEntry } from './access/user-config';

/** The state of a simulated PVE cluster: nodes, storages, VMs, tasks, SDN, ACLs and identities. */
export interface SimSettings {
  /** How long a new VM stays out of /cluster/resources (pmxcfs status propagation). */
  resourcesLagMs: number;
  /** Duration of a `qmcreate` task. */
  createTaskMs: number;
  /** Minimum duration of other tasks (config, start, stop, destroy, SDN apply). */
  taskMs: number;
  /** Extra time a disk import or move takes (a real one copies gigabytes; tests need them to overlap). */
  importTaskMs: number;
  /** How long a guest that reacts to ACPI takes to power off after a shutdown request. */
  guestShutdownMs: number;
  /**
   * Whether a simulated VM (one without a bootable disk, not run under QEMU) answers the ACPI power
   * button. On PVE such a VM has nothing to boot: its firmware waits for a boot device and no OS sees
   * the button, so a graceful shutdown runs into its timeout ("VM quit/powerdown failed - got timeout")
   * and only forceStop stops it. A harness whose simulated VMs stand for installed guests (clones of a
   * template with an OS) sets this. Real guests under QEMU answer as their OS does, whatever this says.
   */
  simulatedGuestsAnswerAcpi: boolean;
  /** How long a writer waits for a VM's config lock before "can't lock file … got timeout". */
  flockTimeoutMs: number;
  /** PVE delays 401 answers on purpose (3 s). */
  authFailureDelayMs: number;
  /** Ticket lifetime (PVE: 2 h). */
  ticketLifetimeMs: number;
  /** Nodes whose network reload fails during an SDN apply (the reload task then ends with warnings). */
  sdnReloadFailNodes: string[];
}

export const DEFAULT_SETTINGS: SimSettings = {
  resourcesLagMs: 0,
  createTaskMs: 30,
  taskMs: 5,
  importTaskMs: 0,
  guestShutdownMs: 50,
  simulatedGuestsAnswerAcpi: false,
  flockTimeoutMs: 10_000,
  authFailureDelayMs: 3_000,
  ticketLifetimeMs: 2 * 3600_000,
  sdnReloadFailNodes: [],
};

export type Role = 'admin' | 'audit';

/**
 * A credential: a user's password or an API token's secret. A cluster built from a spec gets the user
 * (or the token, without privilege separation) in its user.cfg, and `role` as an ACL on `/`
 * (Administrator or PVEAuditor; root@pam needs none).
 */
export interface SimIdentity {
  /** `user@realm` or `user@realm!token`. */
  id: string;
  role: Role;
  /** Token secret (tokens) or password (users). */
  secret: string;
  /** A user with a second factor: a password login answers `NeedTFA` and only a half ticket. */
  tfa?: boolean;
}

export interface SimVm {
  vmid: number;
  node: string;
  config: Record<string, string>;
  pending: Record<string, string>;
  /** Keys to delete when pending changes apply; `true` = forced. */
  pendingDelete: Map<string, boolean>;
  /**
   * The config file's snapshot sections (`[name]`), oldest first: each the config as it was, with
   * `snaptime`, `parent`, `description`, `vmstate` (the saved RAM's volume), `snapstate` while in work.
   */
  snapshots: Map<string, Record<string, string>>;
  /** The VM's firewall config (vm-firewall.ts), once anything set it. */
  firewall?: VmFirewall;
  /** The cloud-init settings as the cloud-init drive was last generated with (cloud-init-pending.ts). */
  cloudinitRecord?: Record<string, string>;
  status: 'running' | 'stopped';
  /** A running VM whose CPUs are stopped (status/suspend without todisk); QMP reports `paused`. */
  paused?: boolean;
  startedMs?: number;
  createdMs: number;
  /**
   * Whether a simulated guest powers off on ACPI shutdown: not by default (nothing to boot, see
   * SimSettings.simulatedGuestsAnswerAcpi); `PUT /_sim/vms/<vmid>` sets it either way.
   */
  guestAcpi: boolean;
  flock: FileLock;
}

export interface SdnConfig {
  zones: Record<string, Record<string, string>>;
  vnets: Record<string, Record<string, string>>;
}

/** A container (LXC): listed, never changed; running since the cluster started unless `stopped`. */
export interface SimContainer {
  vmid: number;
  node: string;
  name: string;
  memoryMiB?: number;
  swapMiB?: number;
  cores?: number;
  /** Size of the root disk (`rootfs: …,size=`). */
  rootfsBytes?: number;
  stopped?: boolean;
}

/** A resource pool (user.cfg `pool:` line): its comment, its member guests and storages. */
export interface SimPool {
  comment?: string;
  vms: Set<number>;
  storage: Set<string>;
}

export interface ClusterSpec {
  flavour: Flavour;
  nodes: string[];
  /** Per-node hardware; a node not listed gets defaultNodeHardware. */
  hardware?: Record<string, Partial<NodeHardware>>;
  /** Pools that exist from the start, by id. */
  pools?: Record<string, { comment?: string }>;
  storages: StorageSpec[];
  bridges: string[];
  identities: SimIdentity[];
  /** Containers (LXC) listed by /cluster/resources, so clients must filter them out. */
  containers?: SimContainer[];
  settings?: Partial<SimSettings>;
}

export const VERSIONS: Record<Flavour, { version: string; release: string; repoid: string }> = {
  '8.4': { version: '8.4.2', release: '8.4', repoid: 'bbd1a5b0' },
  '9.1': { version: '9.1.3', release: '9.1', repoid: 'b2a1b2b8' },
};

export class Cluster {
  readonly flavour: Flavour;
  /** The corosync cluster name. */
  readonly name = 'ferrylab';
  readonly nodes: string[];
  readonly bridges: string[];
  readonly storages: Storages;
  readonly tasks = new Tasks();
  readonly vms = new Map<number, SimVm>();
  readonly containers: SimContainer[];
  readonly pools = new Map<string, SimPool>();
  /** When the simulated nodes booted (uptimes count from here). */
  readonly bootedMs = Date.now();
  private readonly hardwareSpec: Record<string, Partial<NodeHardware>>;
  readonly identities = new Map<string, SimIdentity>();
  readonly tickets = new Map<string, { userid: string; issuedMs: number; csrf: string }>();
  /** user.cfg: users, groups, roles, tokens and the ACL (access/user-config.ts). */
  readonly access: AccessConfig;
  settings: SimSettings;
  sdn: SdnConfig = { zones: {}, vnets: {} };
  sdnRunning: SdnConfig = { zones: {}, vnets: {} };
  sdnLockToken?: string;
  private readonly macs = new Set<string>();

  constructor(spec: ClusterSpec) {
    this.flavour = spec.flavour;
    this.nodes = spec.nodes;
    this.bridges = spec.bridges;
    this.storages = new Storages(spec.storages, spec.nodes);
    this.containers = spec.containers ?? [];
    this.hardwareSpec = spec.hardware ?? {};
    for (const [id, pool] of Object.entries(spec.pools ?? {}))
      this.pools.set(id, { comment: pool.comment, vms: new Set(), storage: new Set() });
    this.access = new AccessConfig(spec.flavour);
    this.access.groups.set('admins', { users: new Set() });
    for (const identity of spec.identities) this.addIdentity(identity);
    this.settings = { ...DEFAULT_SETTINGS, ...spec.settings };
  }

  /** The ACL entries (user.cfg's `acl:` lines). */
  get acl(): AclEntry[] {
    return this.access.acl;
  }

  /** A credential and what it stands for in user.cfg (see SimIdentity). */
  addIdentity(identity: SimIdentity): void {
    this.identities.set(identity.id, identity);
    const token = AccessConfig.splitTokenId(identity.id);
    const userid = token?.userid ?? identity.id;
    const user = this.access.users.get(userid) ?? this.access.addUser(userid);
    if (token) user.tokens.set(token.tokenid, { privsep: 0, expire: 0 });
    const hasAcl = this.access.acl.some((e) => e.type === 'user' && e.ugid === userid && e.path === '/');
    if (userid !== 'root@pam' && !hasAcl) {
      const roleid = identity.role === 'admin' ? 'Administrator' : 'PVEAuditor';
      this.access.acl.push({ path: '/', type: 'user', ugid: userid, roleid, propagate: 1 });
    }
  }

  requireNode(node: string): void {
    if (!this.nodes.includes(node)) throw fail(`no such cluster node '${node}'`);
  }

  /** The VM on this node, or PVE's error for a missing config file. */
  vm(node: string, vmid: number): SimVm {
    this.requireNode(node);
    const vm = this.vms.get(vmid);
    if (!vm || vm.node !== node)
      throw fail(`Configuration file 'nodes/${node}/qemu-server/${vmid}.conf' does not exist`);
    return vm;
  }

  hardware(node: string): NodeHardware {
    return { ...defaultNodeHardware(this.nodes.indexOf(node)), ...this.hardwareSpec[node] };
  }

  /** The pool a guest belongs to (a guest is in at most one). */
  poolOf(vmid: number): string | undefined {
    for (const [id, pool] of this.pools) if (pool.vms.has(vmid)) return id;
    return undefined;
  }

  /** pve-access-control's remove_vm_access: the guest's ACL entries (`/vms/<vmid>`) and pool membership go. */
  removeVmAccess(vmid: number): void {
    const path = `/vms/${vmid}`;
    for (let i = this.acl.length - 1; i >= 0; i--)
      if (this.acl[i]!.path === path || this.acl[i]!.path.startsWith(`${path}/`)) this.acl.splice(i, 1);
    for (const pool of this.pools.values()) pool.vms.delete(vmid);
  }

  vmidTaken(vmid: number): boolean {
    return this.vms.has(vmid) || this.containers.some((c) => c.vmid === vmid);
  }

  nextFreeVmid(): number {
    for (let id = 100; ; id++) if (!this.vmidTaken(id)) return id;
  }

  newVm(node: string, vmid: number, config: Record<string, string>): SimVm {
    const vm: SimVm = {
      vmid,
      node,
      config,
      pending: {},
      pendingDelete: new Map(),
      snapshots: new Map(),
      status: 'stopped',
      createdMs: Date.now(),
      guestAcpi: this.settings.simulatedGuestsAnswerAcpi,
      flock: new FileLock(`/var/lock/qemu-server/lock-${vmid}.conf`),
    };
    this.vms.set(vmid, vm);
    return vm;
  }

  /** A MAC with Proxmox's prefix BC:24:11, unique in the cluster. */
  newMac(): string {
    for (;;) {
      const mac = `BC:24:11:${[...randomBytes(3)].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(':')}`;
      if (!this.macs.has(mac)) {
        this.macs.add(mac);
        return mac;
      }
    }
  }

  /** pve-guest-common's check_lock (`VM is locked (<lock>)`: the message names no VMID). */
  checkLock(vm: SimVm, skiplock?: string): void {
    if (vm.config.lock && skiplock !== '1') throw fail(`VM is locked (${vm.config.lock})`);
  }
}

/** SHA1 of a config as PVE writes it (sorted `key: value` lines, the [PENDING] section, then each snapshot's). */
export function configDigest(
  vm: Pick<SimVm, 'config' | 'pending' | 'pendingDelete'> & { snapshots?: SimVm['snapshots'] },
): string {
  const section = (config: Record<string, string>) =>
    Object.keys(config)
      .sort()
      .map((k) => `${k}: ${config[k]}`);
  const lines = section(vm.config);
  if (Object.keys(vm.pending).length > 0 || vm.pendingDelete.size > 0) {
    lines.push('', '[PENDING]', ...section(vm.pending));
    if (vm.pendingDelete.size > 0)
      lines.push(`delete: ${[...vm.pendingDelete].map(([k, f]) => (f ? `!${k}` : k)).join(',')}`);
  }
  for (const [name, snapshot] of vm.snapshots ?? []) lines.push('', `[${name}]`, ...section(snapshot));
  return createHash('sha1').update(lines.join('\n')).digest('hex');
}

/** SHA1 over an SDN section config (zones or vnets), as pve-network's digest. */
export function sdnDigest(section: Record<string, Record<string, string>>): string {
  const text = Object.keys(section)
    .sort()
    .map(
      (id) =>
        `${id}\n${Object.entries(section[id]!)
          .map(([k, v]) => `\t${k} ${v}`)
          .join('\n')}`,
    )
    .join('\n\n');
  return createHash('sha1').update(text).digest('hex');
}
