import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fail } from '../api-error';
import type { Cluster } from '../cluster';
import { qemuVmStatus } from '../guest-stats';
import type { RouteTable, SimRequest } from './types';

/**
 * `…/rrd` and `…/rrddata` (PVE::RRD's create_rrd_graph and create_rrd_data over the VM's RRD file,
 * `pve2.3-vm/<vmid>` on 8.4, `pve-vm-9.0/<vmid>` on 9.1): neither loads the VM's config, so a VMID
 * without statistics fails as RRDs::fetch does. The series has each flavour's resolution and length per
 * timeframe; a point before the VM existed has only its `time` (RRD's unknown values are left out), the
 * others the VM's figures as the simulator reports them now (pvestatd's samples). `rrd` renders no
 * graph: it answers the file name of a one-pixel PNG the simulator writes.
 */
export const RRD_SETUP: Record<Cluster['flavour'], Record<string, [number, number]>> = {
  '8.4': { hour: [60, 70], day: [1800, 70], week: [10800, 70], month: [43200, 70], year: [604800, 70] },
  '9.1': { hour: [60, 60], day: [60, 1440], week: [1800, 336], month: [1800, 1440], year: [21600, 1440] },
};

const rrdName = (cluster: Cluster, vmid: number) => `${cluster.flavour === '9.1' ? 'pve-vm-9.0' : 'pve2.3-vm'}/${vmid}`;

function vmOrRrdError(req: SimRequest) {
  const vm = req.cluster.vms.get(Number(req.params.vmid));
  if (!vm)
    throw fail(
      `RRD error: opening '/var/lib/rrdcached/db/${rrdName(req.cluster, Number(req.params.vmid))}': No such file or directory`,
    );
  return vm;
}

/** A one-pixel PNG (the smallest valid image). */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

export const rrdRoutes: RouteTable = {
  'GET /nodes/{node}/qemu/{vmid}/rrddata': (req) => {
    const { cluster } = req;
    const vm = vmOrRrdError(req);
    const [step, count] = RRD_SETUP[cluster.flavour][req.params.timeframe!]!;
    const end = step * Math.floor(Date.now() / 1000 / step);
    const s = qemuVmStatus(cluster, vm);
    const figures: Record<string, number> = {
      maxcpu: s.cpus as number,
      cpu: s.cpu as number,
      maxmem: s.maxmem as number,
      mem: s.mem as number,
      maxdisk: s.maxdisk as number,
      disk: s.disk as number,
      netin: 0,
      netout: 0,
      diskread: 0,
      diskwrite: 0,
      ...(cluster.flavour === '9.1'
        ? {
            memhost: s.mem as number,
            pressurecpusome: 0,
            pressurecpufull: 0,
            pressureiosome: 0,
            pressureiofull: 0,
            pressurememorysome: 0,
            pressurememoryfull: 0,
          }
        : {}),
    };
    const created = Math.floor(vm.createdMs / 1000);
    return Array.from({ length: count }, (_, i) => {
      const time = end - (count - i) * step;
      return time + step <= created ? { time } : { time, ...figures };
    });
  },

  'GET /nodes/{node}/qemu/{vmid}/rrd': (req) => {
    const vm = vmOrRrdError(req);
    const dir = path.join(tmpdir(), 'ferry-sim-rrd');
    mkdirSync(dir, { recursive: true });
    const filename = path.join(
      dir,
      `rrd-${vm.vmid}-${req.params.ds!.replace(/[^\w-]+/g, '_')}-${req.params.timeframe}.png`,
    );
    writeFileSync(filename, PNG);
    return { filename };
  },
};
