import { ApiError } from '../api-error';
import type { Cluster } from '../cluster';
import { checkHint, type GuestNetworkHints } from './guest-network';
import { qemuRuntime } from './runtime';

/**
 * The simulator admin endpoint's part for real guests (lab and tests only, never PVE's API):
 * - `GET /_sim/qemu`: every running QEMU (pid, accel, forwards, serial log, command line);
 * - `GET /_sim/vms/{vmid}/qemu`: one VM's, `{ running: false }` when it has none;
 * - `PUT /_sim/vms/{vmid}/guest-network` `{ net0: { address: "192.0.2.10/24", gateway?, ports: [8080] } }`:
 *   the guest's address and the ports to forward from 127.0.0.1, used from the VM's next start (without
 *   it, the lab guest's own settings on its disk are read; see guest-network.ts).
 * Answers undefined for any other path.
 */
export function handleQemuAdmin(cluster: Cluster, method: string, pathname: string, body: unknown): { data: unknown } | undefined {
  const runtime = qemuRuntime(cluster);
  if (method === 'GET' && pathname === '/_sim/qemu') return { data: runtime?.list() ?? [] };
  const m = /^\/_sim\/vms\/(\d+)\/(qemu|guest-network)$/.exec(pathname);
  if (!m) return undefined;
  const vmid = Number(m[1]);
  if (!cluster.vms.has(vmid)) throw new ApiError(404, `no VM ${vmid}`);
  if (method === 'GET' && m[2] === 'qemu') {
    const info = runtime?.info(vmid);
    return { data: info ? { running: true, ...info } : { running: false, serialLog: runtime?.paths(vmid).serialLog } };
  }
  if (method === 'PUT' && m[2] === 'guest-network') {
    if (!runtime) throw new ApiError(400, 'this simulator runs no real guests');
    const hints = (body ?? {}) as GuestNetworkHints;
    for (const [nic, hint] of Object.entries(hints)) {
      const problem = checkHint(nic, hint);
      if (problem) throw new ApiError(400, `invalid guest network: ${problem}`);
    }
    runtime.hints.set(vmid, hints);
    return { data: hints };
  }
  return undefined;
}
