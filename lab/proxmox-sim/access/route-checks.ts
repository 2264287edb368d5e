import { parsePropertyString } from '../../../src/proxmox/property-string';
import { parseUpid } from '../../../src/proxmox/upid';
import type { SimRequest } from '../routes/types';
import { ownerOf } from './api-check';
import { permissionDenied } from './permissions';
import {
  checkBridgeAccess,
  checkDrivePerms,
  checkModifyConfigPerm,
  checkStorageAccess,
  checkVmAllocate,
} from './qemu-checks';
import { checkVolumeAccess } from './volume-access';

/**
 * The permission checks a method's own code makes before it acts, where its schema `permissions` say
 * `user => 'all'` or only part of the story (qemu-server, pve-storage, pve-manager, pve-network). The
 * simulator runs them after the parameters are verified, as the handlers do; list filtering (only the
 * VMs, storages, tasks one may see) is in the list handlers themselves.
 */
type RouteCheck = (req: SimRequest) => void;

const DRIVE = /^(ide\d+|sata\d+|scsi\d+|virtio\d+|efidisk0|tpmstate0)$/;

/** create_vm's checks, in its order. */
const createVm: RouteCheck = ({ cluster, perm, params }) => {
  const { pool, storage, vmid } = params;
  if (pool !== undefined && !cluster.pools.has(pool)) throw permissionDenied(`pool '${pool}' does not exist`);
  if (storage !== undefined) perm.check(`/storage/${storage}`, ['Datastore.AllocateSpace']);
  if (params.ha !== undefined) perm.check('/', ['Sys.Console']);
  checkVmAllocate(perm, vmid!, pool);
  const settings = Object.fromEntries(
    Object.entries(params).filter(
      ([k]) =>
        ![
          'node',
          'vmid',
          'pool',
          'storage',
          'start',
          'live-restore',
          'unique',
          'force',
          'archive',
          'bwlimit',
          'import-working-storage',
          'ha',
        ].includes(k),
    ),
  );
  if (Object.keys(settings).length === 0) return;
  checkStorageAccess(cluster, perm, vmid!, settings, storage);
  checkModifyConfigPerm(perm, vmid!, pool, Object.keys(settings));
  checkBridgeAccess(cluster, perm, settings);
};

/**
 * update_vm_api's checks (and unlink's, which calls it), after its own parameter checks
 * (config-update.ts parseConfigUpdate: conflicts, unknown keys, nothing to do): the options deleted and
 * set, their storages and bridges before anything; then, loading the config, each drive's and the tags'
 * privilege, which for the asynchronous POST run inside the qmconfig worker: there a refusal fails the
 * task instead of the request.
 */
export function checkConfigUpdate(req: SimRequest, update: { set: Record<string, string>; delete: string[] }): void {
  const { cluster, perm, params } = req;
  if (perm.isRoot) return;
  const vmid = params.vmid!;
  checkModifyConfigPerm(perm, vmid, undefined, update.delete);
  checkModifyConfigPerm(perm, vmid, undefined, Object.keys(update.set));
  checkStorageAccess(cluster, perm, vmid, update.set);
  checkBridgeAccess(cluster, perm, update.set);
  try {
    loadedConfigChecks(req, vmid, update.delete, update.set);
  } catch (err) {
    if (req.method !== 'POST' || !(err instanceof Error)) throw err;
    req.taskFailure = err.message;
  }
}

function loadedConfigChecks(req: SimRequest, vmid: string, deleted: string[], set: Record<string, string>): void {
  const { cluster, perm } = req;
  const vm = cluster.vms.get(Number(vmid));
  for (const key of deleted) {
    const current = vm?.config[key] ?? vm?.pending[key];
    if (current === undefined) continue;
    if (/^unused\d+$/.test(key)) perm.checkVm(vmid, undefined, ['VM.Config.Disk']);
    else if (DRIVE.test(key)) checkDrivePerms(perm, vmid, key, current);
    else if (/^net\d+$/.test(key)) checkBridgeAccess(cluster, perm, { [key]: current });
  }
  for (const [key, value] of Object.entries(set)) if (DRIVE.test(key)) checkDrivePerms(perm, vmid, key, value);
  // pve-guest-common assert_tag_permissions (datacenter.cfg's default `user-tag-access` is free-form).
  if (set.tags !== undefined || deleted.includes('tags')) perm.checkVm(vmid, undefined, ['VM.Config.Options']);
}

/** clone_vm: the pool exists, space on every storage the copies go to, the NICs' bridges. */
const cloneVm: RouteCheck = ({ cluster, perm, params }) => {
  if (params.pool !== undefined && !cluster.pools.has(params.pool))
    throw permissionDenied(`pool '${params.pool}' does not exist`);
  const vm = cluster.vms.get(Number(params.vmid));
  if (!vm || perm.isRoot) return;
  const config = params.snapname ? (vm.snapshots.get(params.snapname) ?? vm.config) : vm.config;
  for (const [key, value] of Object.entries(config)) {
    if (!DRIVE.test(key)) continue;
    const file = parsePropertyString(value, 'file').file ?? '';
    if (!file || file === 'none' || /(^|,)media=cdrom(,|$)/.test(value)) {
      if (file === 'cdrom') perm.check('/', ['Sys.Console']);
      continue;
    }
    const sid = params.storage ?? file.split(':')[0]!;
    perm.check(`/storage/${sid}`, ['Datastore.AllocateSpace']);
  }
  if (config.vmstatestorage) perm.check(`/storage/${config.vmstatestorage}`, ['Datastore.AllocateSpace']);
  checkBridgeAccess(cluster, perm, config);
};

/** move_vm_disk: space on the target storage (or VM.Config.Disk on a target VM). */
const moveDisk: RouteCheck = ({ perm, params }) => {
  if (params['target-vmid'] !== undefined) perm.checkVm(params['target-vmid'], undefined, ['VM.Config.Disk']);
  if (params.storage !== undefined) perm.check(`/storage/${params.storage}`, ['Datastore.AllocateSpace']);
};

/** A task's status or log: its owner (a token's tasks: the token or its user), else Sys.Audit on the node. */
const taskRead: RouteCheck = ({ perm, params }) => {
  let owner: string;
  try {
    owner = parseUpid(params.upid!).user;
  } catch {
    return; // the handler answers the parse error
  }
  if (perm.id === owner || perm.id === ownerOf(owner)) return;
  perm.check(`/nodes/${params.node}`, ['Sys.Audit']);
};

/** pve-storage's content methods: the volume, with or without its storage in the ID. */
const volid = (params: Record<string, string>) =>
  params.volume!.includes(':') ? params.volume! : `${params.storage}:${params.volume}`;

const volumeRead: RouteCheck = ({ perm, params }) => checkVolumeAccess(perm, volid(params));

const volumeDelete: RouteCheck = ({ perm, params }) => {
  const id = volid(params);
  const sid = id.split(':')[0]!;
  const backupOwner = /^[^:]+:backup\/vzdump-\w+-(\d+)-/.exec(id)?.[1];
  if (backupOwner) {
    perm.check(`/storage/${sid}`, ['Datastore.AllocateSpace']);
    perm.check(`/vms/${backupOwner}`, ['VM.Backup']);
  } else perm.check(`/storage/${sid}`, ['Datastore.Allocate']);
};

/** pve-network's vnet methods check the vnet's path under its zone. */
const vnetCheck =
  (privs: string[], any: boolean): RouteCheck =>
  ({ cluster, perm, params }) => {
    const zone = (cluster.sdn.vnets[params.vnet!] ?? cluster.sdnRunning.vnets[params.vnet!])?.zone;
    if (zone !== undefined) perm.checkFull(`/sdn/zones/${zone}/${params.vnet}`, privs, any);
  };

export const ROUTE_CHECKS: Record<string, RouteCheck> = {
  'POST /nodes/{node}/qemu': createVm,
  'POST /nodes/{node}/qemu/{vmid}/clone': cloneVm,
  'POST /nodes/{node}/qemu/{vmid}/move_disk': moveDisk,
  'GET /nodes/{node}/tasks/{upid}/status': taskRead,
  'GET /nodes/{node}/tasks/{upid}/log': taskRead,
  'GET /nodes/{node}/storage/{storage}/content/{volume}': volumeRead,
  'PUT /nodes/{node}/storage/{storage}/content/{volume}': volumeRead,
  'DELETE /nodes/{node}/storage/{storage}/content/{volume}': volumeDelete,
  'GET /cluster/sdn/vnets/{vnet}': vnetCheck(['SDN.Audit', 'SDN.Allocate'], true),
  'PUT /cluster/sdn/vnets/{vnet}': vnetCheck(['SDN.Allocate'], false),
  'DELETE /cluster/sdn/vnets/{vnet}': vnetCheck(['SDN.Allocate'], false),
};
