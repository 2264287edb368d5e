import { directEndpoint, tcpConnect } from '../../src/guest/tcp-probe';
import { ProxmoxAgentNotRunningError } from '../../src/proxmox';
import { clientsOf } from '../clients';
import type { ActivityDeps } from '../deps';
import type { GuestChecks } from '../pve-vm-contract';

/** verifyGuest's reads of a started guest: QEMU's state, the guest agent, and TCP probes of its services. */
export function createGuestChecks(deps: ActivityDeps): GuestChecks {
  const { pve } = clientsOf(deps);
  const resolve = deps.guestEndpoints ?? directEndpoint;
  return {
    async guestRunState({ node, vmid }) {
      const s = await pve().agent.runState(node, vmid);
      return { status: s.status, ...(s.qmpstatus ? { qmpstatus: s.qmpstatus } : {}), uptimeSeconds: s.uptimeSeconds };
    },

    async pingGuestAgent({ node, vmid }) {
      try {
        await pve().agent.ping(node, vmid);
      } catch (err) {
        // Not running yet: the workflow asks again until its deadline. Anything else is classified as usual.
        if (err instanceof ProxmoxAgentNotRunningError)
          return { answered: false, reason: err.context.pveMessage ?? err.message };
        throw err;
      }
      return { answered: true, uptimeSeconds: (await pve().agent.runState(node, vmid)).uptimeSeconds };
    },

    async guestInterfaces({ node, vmid }) {
      const list = await pve().agent.networkInterfaces(node, vmid);
      return list.map((i) => ({
        name: i.name,
        ...(i.mac ? { mac: i.mac } : {}),
        addresses: i.addresses.map((a) => `${a.address}/${a.prefix}`),
      }));
    },

    async probeGuestPort({ vmid, address, port, timeoutMs }) {
      let target;
      try {
        target = await resolve({ vmid, address, port });
      } catch (err) {
        // No way to reach it from this worker (the lab: no forward to that address:port) is a failed probe, said so.
        return {
          ok: false,
          endpoint: `${address}:${port}`,
          ms: 0,
          error: `not reachable from this worker: ${(err as Error).message}`,
        };
      }
      const endpoint =
        target.host === address && target.port === port
          ? `${address}:${port}`
          : `${address}:${port} via ${target.host}:${target.port}`;
      const result = await tcpConnect(target.host, target.port, timeoutMs);
      return { ok: result.ok, endpoint, ms: result.ms, ...(result.error ? { error: result.error } : {}) };
    },
  };
}
