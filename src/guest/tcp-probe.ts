import { connect } from 'node:net';

/**
 * Where a guest's `address:port` can be reached from the worker. In production that is the address
 * itself (`directEndpoint`). The lab's guests sit behind QEMU user-mode networking, so the lab maps
 * an address:port to the loopback port QEMU forwards to it (from the Proxmox simulator's admin API);
 * a probe through such a mapping proves the guest's service answers on that port, not that the
 * guest's address is routable from the worker, and the probe's record says which endpoint it used.
 */
export type GuestEndpointResolver = (target: {
  vmid: number;
  address: string;
  port: number;
}) => Promise<{ host: string; port: number }>;

export const directEndpoint: GuestEndpointResolver = async ({ address, port }) => ({ host: address, port });

export interface TcpProbeResult {
  ok: boolean;
  /** How long the connect took, or how long until it failed. */
  ms: number;
  /** The error (ECONNREFUSED, timeout, …) when not ok. */
  error?: string;
}

/** One TCP connect (no data sent), closed at once; a timeout or error is a result, not an exception. */
export function tcpConnect(host: string, port: number, timeoutMs: number): Promise<TcpProbeResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (result: TcpProbeResult) => {
      socket.removeAllListeners();
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done({ ok: false, ms: elapsed(), error: `no answer within ${timeoutMs} ms` }));
    socket.once('connect', () => done({ ok: true, ms: elapsed() }));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      done({ ok: false, ms: elapsed(), error: err.code ?? err.message }),
    );
  });
}
