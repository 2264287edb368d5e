import { type ProxmoxApi, vmPath, normaliseValue, type ConfigValues } from './api';
import {
  ProxmoxError,
  ProxmoxLockedError,
  ProxmoxNotFoundError,
  ProxmoxParameterError,
  ProxmoxPolicyError,
  ProxmoxVmRunningError,
} from './errors';
import { formatPropertyString } from './property-string';
import { flag } from './quirks';
import { nodePath } from './node-name';
import { NodesApi } from './nodes';
import { PowerApi } from './power';
import { nextIdSchema, nodeVmListSchema, resourcesSchema, vmConfigSchema } from './schemas';
import type { TaskResult, WaitOptions } from './tasks';
import { formatNic } from './nics';
import { cdromParams, tpmstateValue } from './cdrom-tpm';
import type { ImportFromDiskSpec, VmShellSpec } from '../domain/pve-vm-spec';

export type { VmShellSpec } from '../domain/pve-vm-spec';

/**
 * Finding, creating and deleting VMs. VMIDs are identities (unique); names are labels (PVE does not keep
 * them unique), so lookups by name return every match. Create and delete are safe to repeat: they check
 * the VMID first and treat "already there" / "already gone" as done.
 */
export interface VmSummary {
  vmid: number;
  node: string;
  name?: string;
  status: string;
  lock?: string;
  tags: string[];
  template: boolean;
}

export interface CreateResult {
  created: boolean;
  vmid: number;
  node: string;
  task?: TaskResult;
}

export class VmsApi {
  private readonly nodes: NodesApi;
  private readonly power: PowerApi;

  constructor(private readonly api: ProxmoxApi) {
    this.nodes = new NodesApi(api);
    this.power = new PowerApi(api);
  }

  /** QEMU VMs of the cluster (`/cluster/resources?type=vm` lists containers too: they are left out). */
  async list(): Promise<VmSummary[]> {
    const rows = await this.api.call('GET', '/cluster/resources', { type: 'vm' }, resourcesSchema);
    return rows
      .filter((r) => r.type === 'qemu' && r.vmid !== undefined && r.node !== undefined)
      .map((r) => ({
        vmid: r.vmid!,
        node: r.node!,
        ...(r.name !== undefined ? { name: r.name } : {}),
        status: r.status ?? 'unknown',
        ...(r.lock ? { lock: r.lock } : {}),
        tags: r.tags ? r.tags.split(/[;, ]+/).filter(Boolean) : [],
        template: r.template ?? false,
      }));
  }

  /**
   * QEMU VMs as the cluster lists them plus those each online node lists itself: /cluster/resources
   * lags behind a fresh create, a node's own list does not (and an offline node's VMs still show in
   * the cluster's list).
   */
  async listEverywhere(): Promise<VmSummary[]> {
    const [listed, nodes] = await Promise.all([this.list(), this.onlineNodes()]);
    const all = new Map(listed.map((vm) => [vm.vmid, vm]));
    for (const node of nodes) {
      for (const vm of await this.listOnNode(node)) if (!all.has(vm.vmid)) all.set(vm.vmid, vm);
    }
    return [...all.values()];
  }

  /** Every VMID in use in the cluster, by VMs and containers alike (a snapshot: nothing is reserved). */
  async usedVmids(): Promise<number[]> {
    const rows = await this.api.call('GET', '/cluster/resources', { type: 'vm' }, resourcesSchema);
    return rows.flatMap((r) => (r.vmid !== undefined ? [r.vmid] : []));
  }

  /** Every VM with this name (names are not unique; the caller decides). */
  async findByName(name: string): Promise<VmSummary[]> {
    return (await this.list()).filter((vm) => vm.name === name);
  }

  /**
   * The VM with this VMID, or undefined. /cluster/resources lags behind a fresh create, so a miss is
   * confirmed with `nextid?vmid=` and, if the id is taken, the nodes' own VM lists.
   */
  async findById(vmid: number): Promise<VmSummary | undefined> {
    const listed = (await this.list()).find((vm) => vm.vmid === vmid);
    if (listed) return listed;
    if (!(await this.vmidTaken(vmid))) return undefined;
    for (const node of await this.onlineNodes()) {
      const found = (await this.listOnNode(node)).find((vm) => vm.vmid === vmid);
      if (found) return found;
    }
    return undefined; // taken by a container (or a VM on a node that is offline)
  }

  /** Nodes that answer for themselves (an offline node's VMs show only in the cluster's list). */
  private async onlineNodes(): Promise<string[]> {
    return (await this.nodes.list()).filter((n) => n.status === 'online').map((n) => n.node);
  }

  /** A node's own VM list (no lag after a create; no tags or template flag in it). */
  private async listOnNode(node: string): Promise<VmSummary[]> {
    const rows = await this.api.call('GET', `${nodePath(node)}/qemu`, {}, nodeVmListSchema);
    return rows.map((row) => ({
      vmid: row.vmid,
      node,
      ...(row.name !== undefined ? { name: row.name } : {}),
      status: row.status,
      ...(row.lock ? { lock: row.lock } : {}),
      tags: [],
      template: false,
    }));
  }

  /** Whether a VMID is used (by a VM or a container). `nextid` reserves nothing: this is a snapshot. */
  async vmidTaken(vmid: number): Promise<boolean> {
    try {
      await this.api.call('GET', '/cluster/nextid', { vmid }, nextIdSchema);
      return false;
    } catch (err) {
      if (err instanceof ProxmoxParameterError && /already exists/.test(err.errors.vmid ?? '')) return true;
      throw err;
    }
  }

  /** The lowest free VMID now (informational only: it is not reserved). */
  async nextFreeId(): Promise<number> {
    return this.api.call('GET', '/cluster/nextid', {}, nextIdSchema);
  }

  /**
   * Creates a VM shell, or finds the one created before under this VMID. A VM with this VMID but another
   * name (or on another node) is not ours: that is refused, never adopted.
   */
  async create(spec: VmShellSpec, wait: WaitOptions = {}): Promise<CreateResult> {
    const existing = await this.existing(spec, wait);
    if (existing) return existing;
    let task: TaskResult | null;
    try {
      task = await this.api.task(
        'POST',
        `/nodes/${spec.node}/qemu`,
        { vmid: spec.vmid, ...vmCreateParams(spec) },
        wait,
      );
    } catch (err) {
      // Created meanwhile (by our own earlier attempt whose answer was lost, or by someone else): look again.
      if (err instanceof ProxmoxError && /already exists/.test(err.message)) {
        const again = await this.existing(spec, wait);
        if (again) return again;
      }
      throw err;
    }
    return { created: true, vmid: spec.vmid, node: spec.node, ...(task ? { task } : {}) };
  }

  private async existing(spec: VmShellSpec, wait: WaitOptions): Promise<CreateResult | undefined> {
    const path = vmPath(spec.node, spec.vmid);
    const started = Date.now();
    const deadline = started + (wait.timeoutMs ?? 600_000);
    let config;
    for (;;) {
      try {
        config = await this.api.call('GET', `${path}/config`, {}, vmConfigSchema);
      } catch (err) {
        if (!(err instanceof ProxmoxNotFoundError)) throw err;
        if (!(await this.vmidTaken(spec.vmid))) return undefined;
        const elsewhere = await this.findById(spec.vmid);
        throw new ProxmoxPolicyError(
          elsewhere
            ? `VMID ${spec.vmid} is already used on node ${elsewhere.node}${elsewhere.name ? ` by '${elsewhere.name}'` : ''}; not creating it on ${spec.node}`
            : `VMID ${spec.vmid} is used by a container`,
          { vmid: spec.vmid },
        );
      }
      // A create still running (ours, from an attempt whose answer was lost): wait for it to finish.
      if (config.values.lock !== 'create') break;
      if (Date.now() > deadline)
        throw new ProxmoxLockedError(`VM ${spec.vmid} is still being created (lock: create)`, { vmid: spec.vmid });
      // A wait on a task like any other: the caller's progress callback (an activity's heartbeat) hears of it.
      wait.onProgress?.({
        upid: `(the earlier create of VM ${spec.vmid})`,
        type: 'qmcreate',
        elapsedMs: Date.now() - started,
        running: true,
      });
      await new Promise((r) => setTimeout(r, wait.pollIntervalMs ?? 200));
    }
    if (spec.name !== undefined && config.values.name !== spec.name) {
      throw new ProxmoxPolicyError(
        `VMID ${spec.vmid} on ${spec.node} already exists as '${config.values.name ?? '(no name)'}', not '${spec.name}'`,
        { vmid: spec.vmid },
      );
    }
    return { created: false, vmid: spec.vmid, node: spec.node };
  }

  /**
   * Deletes a VM (its disks with it). Already gone: nothing to do. Running: refused (stop it first) —
   * PVE refuses too, this only says so before asking.
   */
  async delete(
    node: string,
    vmid: number,
    /** `skiplock` (root@pam only): delete a VM left locked, e.g. `import` after a failed live import. */
    options: { purge?: boolean; destroyUnreferencedDisks?: boolean; skiplock?: boolean } = {},
    wait: WaitOptions = {},
  ): Promise<{ deleted: boolean; task?: TaskResult }> {
    const path = vmPath(node, vmid);
    let status;
    try {
      status = await this.power.status(node, vmid);
    } catch (err) {
      if (err instanceof ProxmoxNotFoundError) return { deleted: false };
      throw err;
    }
    if (status.status === 'running')
      throw new ProxmoxVmRunningError(`VM ${vmid} on ${node} is running; stop it before deleting it`, { vmid, node });
    try {
      const task = await this.api.task(
        'DELETE',
        path,
        {
          purge: options.purge,
          'destroy-unreferenced-disks': options.destroyUnreferencedDisks,
          skiplock: options.skiplock,
        },
        wait,
      );
      return { deleted: true, ...(task ? { task } : {}) };
    } catch (err) {
      if (err instanceof ProxmoxNotFoundError) return { deleted: false };
      throw err;
    }
  }
}

/** The parameters of `POST /nodes/{node}/qemu` (all but `vmid`) for a spec. */
export function vmCreateParams(spec: VmShellSpec): Record<string, string> {
  const params: ConfigValues = {
    name: spec.name,
    machine: spec.machine,
    bios: spec.bios,
    cores: spec.cores,
    sockets: spec.sockets,
    vcpus: spec.vcpus,
    memory: spec.memory,
    ostype: spec.ostype,
    scsihw: spec.scsihw,
    agent: spec.agent,
    onboot: spec.onboot,
    tags: spec.tags?.join(';'),
    boot: spec.boot,
    rng0: spec.rng0,
    args: spec.args,
    description: spec.description,
    'live-restore': spec.liveRestore ? true : undefined,
    efidisk0: spec.efidisk
      ? formatPropertyString(
          {
            file: `${spec.efidisk.storage}:1`,
            efitype: spec.efidisk.efitype ?? '4m',
            'pre-enrolled-keys': flag(spec.efidisk.preEnrolledKeys ?? false),
          },
          'file',
        )
      : undefined,
    tpmstate0: spec.tpmstate ? tpmstateValue(spec.tpmstate) : undefined,
    ...cdromParams(spec.cdroms),
    ...Object.fromEntries((spec.nics ?? []).map(({ slot, ...nic }) => [slot, formatNic(nic)])),
    ...Object.fromEntries((spec.importDisks ?? []).map((d) => [d.slot, importFromValue(d)])),
    ...spec.extra,
  };
  return Object.fromEntries(
    Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, normaliseValue(v!)]),
  );
}

/** `STORAGE:0,import-from=SOURCE`: a new disk on STORAGE, copied from SOURCE. */
function importFromValue(disk: ImportFromDiskSpec): string {
  return formatPropertyString({ file: `${disk.storage}:0`, 'import-from': disk.source }, 'file');
}
