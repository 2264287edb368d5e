import { randomUUID } from 'node:crypto';
import { formatPropertyString, parsePropertyString } from '../../../src/proxmox/property-string';
import { parseNic } from '../../../src/proxmox/nics';
import { ApiError, fail, paramError } from '../api-error';
import { cloneDisk } from '../clone-disk';
import type { Cluster, SimVm } from '../cluster';
import type { ImageFormat } from '../qemu-img';
import type { StorageSpec, Volume } from '../storage';
import { DISK_KEY, printDevice, UNUSED_KEY, volumeOf } from '../vm-config';
import { driveVolume, isCdromDrive } from '../vm-drives';
import { volumeHasFeature } from '../volume-features';
import { startTask, type RouteTable, type SimRequest } from './types';

/**
 * `POST /nodes/{node}/qemu/{vmid}/clone` (qemu-server's clone_vm): checked before the `qmclone` task
 * and again inside it; the new VM's config exists from the start with `lock: clone` (on the source's
 * node), gets new MACs, a new SMBIOS UUID (and VM generation ID), the name `Copy-of-VM-<name>` unless
 * one is given, and no snapshot state; each disk is cloned in key order (clone-disk.ts). A template
 * clones linked unless `full`; any other VM only full. With `target`, the clone's config moves to that
 * node at the end, which needs every volume of the VM on shared storage. A failure removes the new
 * volumes and config ("clone failed: …").
 */
interface ClonePlan {
  source: SimVm;
  config: Record<string, string>;
  full: boolean;
  target?: string;
  storage?: StorageSpec;
  /** Disks to clone, with their volumes (full copies where `copy` is set). */
  disks: Array<{ key: string; value: string; volume: Volume; copy: boolean }>;
}

/** What clone_vm does not copy from the source: snapshot state, the running machine, unused volumes. */
const NOT_CLONED = new Set([
  'parent',
  'snaptime',
  'vmstate',
  'snapstate',
  'runningcpu',
  'runningmachine',
  'running-nets-host-mtu',
  'lock',
]);

function sharedVm(cluster: Cluster, config: Record<string, string>): boolean {
  return Object.entries(config).every(([key, value]) => {
    if (!DISK_KEY.test(key)) return true;
    const file = volumeOf(value);
    if (!file || file === 'none' || file === 'cdrom') return true;
    return cluster.storages.get(/^([^:/]+):/.exec(file)?.[1] ?? '')?.shared === true;
  });
}

function loadAndCheck(req: SimRequest): ClonePlan {
  const { cluster, params } = req;
  const node = params.node!;
  const newid = Number(params.newid);
  const target = params.target && params.target !== node && params.target !== 'localhost' ? params.target : undefined;
  if (params.pool !== undefined && !cluster.pools.has(params.pool))
    throw new ApiError(403, `Permission check failed (pool '${params.pool}' does not exist)`);
  if (target) cluster.requireNode(target);
  let storage: StorageSpec | undefined;
  if (params.storage) {
    storage = cluster.storages.require(params.storage);
    if (!storage.content.includes('images'))
      throw paramError({ storage: `storage '${storage.id}' does not support vm images` });
    if (target && !storage.shared) throw fail(`can't clone to non-shared storage '${storage.id}'`);
  }
  const source = cluster.vm(node, Number(params.vmid));
  cluster.checkLock(source);
  const snapname = params.snapname;
  if (snapname && !source.snapshots.has(snapname)) throw fail(`snapshot '${snapname}' does not exist`);
  const full = params.full !== undefined ? params.full === '1' : source.config.template !== '1';
  if (params.storage !== undefined && !full) throw fail("parameter 'storage' not allowed for linked clones");
  if (params.format !== undefined && !full) throw fail("parameter 'format' not allowed for linked clones");
  const config = snapname ? source.snapshots.get(snapname)! : source.config;
  if (target && !sharedVm(cluster, config)) throw fail(`can't clone VM to node '${target}' (VM uses local storage)`);
  if (cluster.vmidTaken(newid)) throw fail(`unable to create VM ${newid}: config file already exists`);
  const running = source.status === 'running';
  const disks: ClonePlan['disks'] = [];
  for (const key of Object.keys(config).sort()) {
    const value = config[key]!;
    if (!DISK_KEY.test(key)) continue;
    const cloudinit = /(^|[:/])vm-\d+-cloudinit/.test(volumeOf(value));
    if (isCdromDrive(value) && !cloudinit) continue;
    if (full && running && !snapname && key === 'tpmstate0') throw fail('cannot clone TPM state while VM is running');
    const volid = volumeOf(value);
    const what = `clone feature is not supported for${snapname ? ' a snapshot of' : ''} '${volid}' (${key})`;
    const volume = driveVolume(cluster, source.node, volid);
    const copy = full || cloudinit || key === 'tpmstate0';
    if (!volume || !volumeHasFeature(copy ? 'copy' : 'clone', volume, snapname))
      throw fail(`${copy ? 'Full' : 'Linked'} ${what}`);
    disks.push({ key, value, volume, copy });
  }
  return { source, config, full, target, storage, disks };
}

/** The clone's config before its disks: everything but snapshot state and unused volumes, new MACs. */
function cloneConfig(cluster: Cluster, plan: ClonePlan, params: Record<string, string>): Record<string, string> {
  const config: Record<string, string> = { lock: 'clone' };
  for (const [key, value] of Object.entries(plan.config)) {
    if (NOT_CLONED.has(key) || UNUSED_KEY.test(key) || plan.disks.some((d) => d.key === key)) continue;
    if (/^net\d+$/.test(key)) {
      const nic = parseNic(value);
      config[key] = printDevice(cluster, key, formatPropertyString({ [nic.model]: cluster.newMac(), ...nic.options }));
    } else config[key] = value;
  }
  const smbios = parsePropertyString(config.smbios1 ?? '', 'uuid');
  config.smbios1 = formatPropertyString({ ...smbios, uuid: randomUUID() }, undefined);
  if (config.vmgenid) config.vmgenid = randomUUID();
  delete config.template;
  config.name = params.name || `Copy-of-VM-${plan.config.name ?? plan.source.vmid}`;
  if (params.description) config.description = params.description;
  return config;
}

export const cloneRoutes: RouteTable = {
  'POST /nodes/{node}/qemu/{vmid}/clone': (req) => {
    const early = loadAndCheck(req);
    const { cluster, params } = req;
    const newid = Number(params.newid);
    return startTask(req, { node: early.source.node, type: 'qmclone', id: String(early.source.vmid) }, (task) =>
      early.source.flock.run(cluster.settings.flockTimeoutMs, async () => {
        const plan = loadAndCheck(req);
        task.log(`creating a clone of VM ${plan.source.vmid} with ID ${newid}`);
        const clone = cluster.newVm(plan.source.node, newid, cloneConfig(cluster, plan, params));
        if (plan.source.firewall) clone.firewall = structuredClone(plan.source.firewall); // clone_vmfw_conf
        const created: Volume[] = [];
        try {
          for (const disk of plan.disks) {
            const source = {
              vm: plan.source,
              key: disk.key,
              value: disk.value,
              volume: disk.volume,
              snapname: params.snapname,
              running: plan.source.status === 'running',
            };
            const into = {
              vmid: newid,
              node: plan.source.node,
              storage: plan.storage,
              format: params.format as ImageFormat | undefined,
            };
            clone.config[disk.key] = await cloneDisk(cluster, source, into, disk.copy, task, created);
          }
          const pending = params.snapname ? [] : Object.keys(plan.source.pending);
          if (pending.length > 0) task.log(`found pending changes for '${pending.join(',')}', discarding for clone`);
          delete clone.config.lock;
          if (plan.target) clone.node = plan.target;
          if (params.pool !== undefined) cluster.pools.get(params.pool)?.vms.add(newid);
          clone.createdMs = Date.now();
        } catch (err) {
          for (const volume of created) cluster.storages.remove(volume);
          cluster.vms.delete(newid);
          throw new Error(`clone failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }),
    ).upid;
  },
};
