import type { GuestEndpointResolver } from '../src/guest/tcp-probe';
import type { SimulatorAdmin } from './proxmox-sim/admin-client';

/** A loopback port QEMU forwards to a guest's address:port (as the Proxmox simulator's admin API reports it). */
export interface LoopbackForward {
  guestAddress: string;
  guestPort: number;
  hostAddress: string;
  hostPort: number;
}

/**
 * The lab's endpoint resolver for verify-guest's probes: its guests sit behind QEMU user-mode
 * networking, reachable only through the loopback ports the simulator forwards to them. A probe of
 * `address:port` connects to the forward of exactly that guest address and port; there is no other way
 * in, so a pair without a forward is refused (the probe then fails saying so) rather than guessed.
 * What such a probe proves: the guest's service answers on that port at that address inside the guest.
 */
export function forwardedEndpoints(
  forwardsOf: (vmid: number) => Promise<readonly LoopbackForward[]>,
): GuestEndpointResolver {
  return async ({ vmid, address, port }) => {
    const forwards = await forwardsOf(vmid);
    const match = forwards.find((f) => f.guestAddress === address && f.guestPort === port);
    if (!match) {
      const known = forwards.map((f) => `${f.guestAddress}:${f.guestPort}`).join(', ') || 'none';
      throw new Error(`the lab forwards no loopback port to ${address}:${port} of VM ${vmid} (forwarded: ${known})`);
    }
    return { host: match.hostAddress, port: match.hostPort };
  };
}

/** The resolver for a Proxmox simulator: the forwards of the VM's running QEMU (none when it runs no real guest). */
export function simulatorGuestEndpoints(admin: Pick<SimulatorAdmin, 'qemu'>): GuestEndpointResolver {
  return forwardedEndpoints(async (vmid) => {
    const qemu = await admin.qemu(vmid);
    return qemu.running ? qemu.forwards : [];
  });
}
