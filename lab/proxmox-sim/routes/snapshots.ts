import { fail, paramError } from '../api-error';
import { configDigest, type SimVm } from '../cluster';
import { typedConfig } from '../typed-config';
import { createSnapshot, deleteSnapshot, rollbackSnapshot, type SnapshotContext } from '../vm-snapshots';
import { startTask, type RouteTable, type SimRequest } from './types';

/**
 * /nodes/{node}/qemu/{vmid}/snapshot…: qemu-server's snapshot_list, snapshot, snapshot_cmd_idx,
 * get/update_snapshot_config, rollback and delsnapshot. Create, rollback and delete are worker tasks
 * (`qmsnapshot`, `qmrollback`, `qmdelsnapshot`); rollback and delete load the VM only in their task, as
 * PVE's do. The work itself is in vm-snapshots.ts.
 */
const BASE = '/nodes/{node}/qemu/{vmid}/snapshot';

const vmOf = (req: SimRequest): SimVm => req.cluster.vm(req.params.node!, Number(req.params.vmid));

/** A snapshot task; the VM is loaded inside it (a missing VM fails the task, not the request). */
function snapshotTask(req: SimRequest, type: string, work: (ctx: SnapshotContext) => Promise<void>): string {
  const node = req.params.node!;
  req.cluster.requireNode(node);
  return startTask(req, { node, type, id: req.params.vmid! }, (task) =>
    work({ cluster: req.cluster, vm: vmOf(req), task }),
  ).upid;
}

function snapshotOf(vm: SimVm, name: string): Record<string, string> {
  const snap = vm.snapshots.get(name);
  if (!snap) throw fail(`snapshot '${name}' does not exist`);
  return snap;
}

/** `GET …/config?snapshot=<name>` (load_snapshot_config: the section, with the file's digest). */
export function snapshotConfigAnswer(req: SimRequest, vm: SimVm): Record<string, unknown> {
  if (req.params.current === '1') {
    const both = "cannot use 'snapshot' parameter with 'current'";
    throw paramError({ snapshot: both, current: both });
  }
  return { ...typedConfig(req.cluster, snapshotOf(vm, req.params.snapshot!)), digest: configDigest(vm) };
}

export const snapshotRoutes: RouteTable = {
  [`GET ${BASE}`]: (req) => {
    const vm = vmOf(req);
    const items: Array<Record<string, unknown>> = [...vm.snapshots].map(([name, snap]) => ({
      name,
      snaptime: Number(snap.snaptime ?? 0) || 0,
      vmstate: snap.vmstate ? 1 : 0,
      description: snap.description ?? '',
      ...(snap.parent ? { parent: snap.parent } : {}),
      ...(snap.snapstate ? { snapstate: snap.snapstate } : {}),
    }));
    const current = {
      name: 'current',
      digest: configDigest(vm),
      running: vm.status === 'running' ? 1 : 0,
      description: 'You are here!',
      ...(vm.config.parent ? { parent: vm.config.parent } : {}),
    };
    return [...items, current];
  },

  [`POST ${BASE}`]: (req) => {
    const name = req.params.snapname!;
    if (name === 'current') throw fail("unable to use snapshot name 'current' (reserved name)");
    if (name.toLowerCase() === 'pending') throw fail("unable to use snapshot name 'pending' (reserved name)");
    vmOf(req);
    return snapshotTask(req, 'qmsnapshot', (ctx) =>
      createSnapshot(ctx, name, req.params.vmstate === '1', req.params.description),
    );
  },

  // snapshot_cmd_idx answers for any name (it loads nothing).
  [`GET ${BASE}/{snapname}`]: () => [{ cmd: 'rollback' }, { cmd: 'config' }],

  [`GET ${BASE}/{snapname}/config`]: (req) => typedConfig(req.cluster, snapshotOf(vmOf(req), req.params.snapname!)),

  [`PUT ${BASE}/{snapname}/config`]: async (req) => {
    if (req.params.description === undefined) return null; // PVE returns before loading anything
    const vm = vmOf(req);
    await vm.flock.run(req.cluster.settings.flockTimeoutMs, async () => {
      req.cluster.checkLock(vm);
      snapshotOf(vm, req.params.snapname!).description = req.params.description!;
    });
    return null;
  },

  [`POST ${BASE}/{snapname}/rollback`]: (req) =>
    snapshotTask(req, 'qmrollback', (ctx) => rollbackSnapshot(ctx, req.params.snapname!, req.params.start === '1')),

  [`DELETE ${BASE}/{snapname}`]: (req) =>
    snapshotTask(req, 'qmdelsnapshot', (ctx) => deleteSnapshot(ctx, req.params.snapname!, req.params.force === '1')),
};
