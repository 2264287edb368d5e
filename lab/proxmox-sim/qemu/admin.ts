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
 *   it, the lab guest's own settings on its disk are read; see guest-network.ts);
 * - `PUT /_sim/guest-networks` `{ "00:50:56:01:00:04": { address, gateway?, ports } }`: the same by MAC, for
 *   any VM with a NIC of that MAC (what the network knows of a guest's static address, whatever its VMID;
 *   the guest must still configure it itself, or the probe finds nothing there).
 * - `GET`/`PUT /_sim/subnets` `{ "198.51.100.0/24": { "bridge": "vmbr0", "tag": 300 } }` (`null` forgets one):
 *   where each subnet lives on the lab's network; a guest answers on its address only while its NIC is on
 *   that bridge/VLAN with its link up (nic-wiring.ts); running guests follow at once.
 * Answers undefined for any other path.
 */
export async function handleQemuAdmin(
  cluster: Cluster,
  method: string,
  pathname: string,
  body: unknown,
): Promise<{ data: unknown } | undefined> {
  const runtime = qemuRuntime(cluster);
  if (method === 'GET' && pathname === '/_sim/qemu') return { data: runtime?.list() ?? [] };
  if (pathname === '/_sim/subnets' && (method === 'GET' || method === 'PUT')) {
    if (!runtime) throw new ApiError(400, 'this simulator runs no real guests');
    if (method === 'PUT') {
      const problem = runtime.subnets.set((body ?? {}) as Parameters<typeof runtime.subnets.set>[0]);
      if (problem) throw new ApiError(400, `invalid subnets: ${problem}`);
      await runtime.rewireAll();
    }
    return { data: runtime.subnets.list() };
  }
  if (method === 'PUT' && pathname === '/_sim/guest-networks') {
    if (!runtime) throw new ApiError(400, 'this simulator runs no real guests');
    const byMac = (body ?? {}) as Record<string, GuestNetworkHints[string]>;
    for (const [mac, hint] of Object.entries(byMac)) {
      if (!/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i.test(mac))
        throw new ApiError(400, `invalid guest network: ${mac} is not a MAC address`);
      const problem = checkHint('net0', hint);
      if (problem) throw new ApiError(400, `invalid guest network: ${mac}${problem.slice('net0'.length)}`);
      runtime.hintsByMac.set(mac.toLowerCase(), hint);
    }
    return { data: Object.fromEntries(runtime.hintsByMac) };
  }
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
