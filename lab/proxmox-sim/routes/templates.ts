import { fail } from '../api-error';
import type { SimVm } from '../cluster';
import { createBase } from '../base-volumes';
import { printDevice } from '../vm-config';
import { configDisks, driveVolume } from '../vm-drives';
import { volumeHasFeature } from '../volume-features';
import { formatPropertyString, parsePropertyString } from '../../../src/proxmox/property-string';
import { startTask, type RouteTable, type SimRequest } from './types';

/**
 * `POST /nodes/{node}/qemu/{vmid}/template` (qemu-server's template): checked before and again inside
 * the `qmtemplate` task under the config lock; the config gets `template: 1`, then each disk whose
 * volume can be a template becomes its base volume (`base-<vmid>-disk-<n>`, read-only; with `disk`,
 * only that one). A template cannot start, be snapshotted or rolled back; linked clones come from it.
 */
function loadAndCheck(req: SimRequest): SimVm {
  const vm = req.cluster.vm(req.params.node!, Number(req.params.vmid));
  req.cluster.checkLock(vm);
  if (vm.snapshots.size > 0) throw fail('unable to create template, because VM contains snapshots');
  if (vm.config.template === '1' && !req.params.disk) throw fail("you can't convert a template to a template");
  if (vm.status === 'running') throw fail("you can't convert a VM to template if VM is running");
  return vm;
}

export const templateRoutes: RouteTable = {
  'POST /nodes/{node}/qemu/{vmid}/template': (req) => {
    const first = loadAndCheck(req);
    const { cluster } = req;
    return startTask(req, { node: first.node, type: 'qmtemplate', id: String(first.vmid) }, (task) =>
      first.flock.run(cluster.settings.flockTimeoutMs, async () => {
        const vm = loadAndCheck(req);
        vm.config.template = '1';
        for (const disk of configDisks(vm.config)) {
          if (req.params.disk && disk.key !== req.params.disk) continue;
          const volume = driveVolume(cluster, vm.node, disk.file);
          if (!volume || !volumeHasFeature('template', volume)) continue;
          const base = createBase(cluster.storages, volume, vm.node, task);
          const drive = parsePropertyString(disk.value, 'file');
          vm.config[disk.key] = printDevice(
            cluster,
            disk.key,
            formatPropertyString({ ...drive, file: base.volid }, 'file'),
          );
        }
        await task.sleep(cluster.settings.taskMs);
      }),
    ).upid;
  },
};
