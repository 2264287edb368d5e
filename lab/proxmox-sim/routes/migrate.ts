import { fail, paramError } from '../api-error';
import type { Cluster, SimVm } from '../cluster';
import { migrateVm, volumeRefs, type MigrateOptions } from '../vm-migrate';
import { startTask, type RouteTable, type SimRequest } from './types';

/**
 * `…/migrate` (qemu-server's migrate_vm_precondition and migrate_vm): the preconditions — running, the
 * nodes allowed (every other node; not_allowed_nodes lists each of them with what it lacks, empty when
 * nothing, as PVE's code does), the local disks with foreach_volid's attributes, the local resources —
 * and the `qmigrate` task (vm-migrate.ts), after PVE's early checks.
 */
const vmOf = (req: SimRequest): SimVm => req.cluster.vm(req.params.node!, Number(req.params.vmid));

/** check_local_resources: devices of this host that block a migration. */
function localResources(config: Record<string, string>): string[] {
  return Object.keys(config)
    .filter(
      (key) =>
        /^hostpci\d+$/.test(key) ||
        /^parallel\d+$/.test(key) ||
        (/^usb\d+$/.test(key) && !/spice/.test(config[key]!)) ||
        (/^serial\d+$/.test(key) && config[key] !== 'socket'),
    )
    .sort();
}

/** parse_idmap for `targetstorage`: `1` (each to itself), one storage (all to it), or `source:target` pairs. */
function storageMap(cluster: Cluster, text: string): MigrateOptions['storageMap'] {
  const map: NonNullable<MigrateOptions['storageMap']> = { entries: {} };
  for (const item of text.split(/[,;\s]+/).filter(Boolean)) {
    if (item === '1') map.identity = true;
    else if (item.includes(':')) {
      const [source, target] = item.split(':') as [string, string];
      if (map.entries[source])
        throw paramError({ targetstorage: `failed to parse storage map: duplicate mapping for '${source}'` });
      map.entries[source] = target;
    } else if (map.default)
      throw paramError({ targetstorage: 'failed to parse storage map: default target ID can only be provided once' });
    else map.default = item;
  }
  for (const target of [...Object.values(map.entries), ...(map.default ? [map.default] : [])])
    cluster.storages.require(target);
  return map;
}

export const migrateRoutes: RouteTable = {
  'GET /nodes/{node}/qemu/{vmid}/migrate': (req) => {
    const { cluster } = req;
    const vm = vmOf(req);
    cluster.checkLock(vm);
    const others = cluster.nodes.filter((n) => n !== vm.node);
    const localDisks = volumeRefs(vm)
      .filter((ref) => {
        if (ref.cdrom && ref.volid === 'none') return false;
        const storage = cluster.storages.get(/^([^:/]+):/.exec(ref.volid)?.[1] ?? '');
        return !storage?.shared;
      })
      .map((ref) => ({
        volid: ref.volid,
        cdrom: ref.cdrom ? 1 : 0,
        is_cloudinit: ref.isCloudinit ? 1 : 0,
        replicate: 1,
        shared: 0,
        is_unused: ref.isUnused ? 1 : 0,
        is_attached: ref.isAttached ? 1 : 0,
        is_vmstate: ref.isVmstate ? 1 : 0,
        is_tpmstate: ref.isTpmstate ? 1 : 0,
        ...(ref.size !== undefined ? { size: ref.size } : {}),
        ...(ref.drivename ? { drivename: ref.drivename } : {}),
        ...(ref.snapshots.length > 0
          ? { referenced_in_snapshot: Object.fromEntries(ref.snapshots.map((s) => [s, 1])) }
          : {}),
        ...(ref.inPending ? { referenced_in_pending: 1 } : {}),
      }));
    return {
      running: vm.status === 'running' ? 1 : 0,
      allowed_nodes: others,
      not_allowed_nodes: Object.fromEntries(others.map((n) => [n, {}])),
      local_disks: localDisks,
      local_resources: localResources(vm.config),
      'mapped-resources': [],
      'mapped-resource-info': {},
      ...(cluster.flavour === '9.1' ? { 'has-dbus-vmstate': 1 } : {}),
    };
  },

  'POST /nodes/{node}/qemu/{vmid}/migrate': (req) => {
    const { cluster, params } = req;
    const target = params.target!;
    if (target === params.node) throw paramError({ target: 'target is local node.' });
    cluster.requireNode(target);
    for (const rootOnly of ['force', 'migration_type', 'migration_network']) {
      if (params[rootOnly] !== undefined && params[rootOnly] !== '0' && req.user !== 'root@pam')
        throw paramError({ [rootOnly]: 'Only root may use this option.' });
    }
    const vm = vmOf(req);
    cluster.checkLock(vm);
    const online = params.online === '1';
    if (vm.status === 'running' && !online) throw fail("can't migrate running VM without --online");
    const options: MigrateOptions = {
      localDevices: localResources(vm.config),
      force: params.force === '1',
      target,
      online: online && vm.status === 'running',
      withLocalDisks: params['with-local-disks'] === '1',
      storageMap: params.targetstorage !== undefined ? storageMap(cluster, params.targetstorage) : undefined,
    };
    return startTask(req, { node: vm.node, type: 'qmigrate', id: String(vm.vmid) }, (task) =>
      migrateVm(cluster, vm, options, task),
    ).upid;
  },
};
