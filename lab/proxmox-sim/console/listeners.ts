import type { Cluster } from '../cluster';
import type { TaskContext } from '../tasks';
import type { WebSocketPeer } from './websocket';

/**
 * What a console or tunnel task listens on, by the address pveproxy's websocket_proxy would connect to:
 * `port:<N>` (vncproxy/termproxy, loopback ports 5900–5999 on PVE) or `socket:<path>` (mtunnel's unix
 * socket). The simulator opens no real port: a websocket upgrade whose API call answered that address is
 * handed to the waiting task, as pveproxy relays it to the listener. A task takes one connection, then
 * stops listening (PVE closes its listening socket after accept).
 */
interface Waiter {
  resolve(peer: WebSocketPeer): void;
}

const registries = new WeakMap<Cluster, Map<string, Waiter | 'reserved'>>();
const registry = (cluster: Cluster) => {
  let map = registries.get(cluster);
  if (!map) registries.set(cluster, (map = new Map()));
  return map;
};

/** PVE::Tools::next_vnc_port: the lowest port of 5900–5999 nobody listens on. */
export function reserveVncPort(cluster: Cluster): number {
  const map = registry(cluster);
  for (let port = 5900; port <= 5999; port++) {
    if (!map.has(`port:${port}`)) {
      map.set(`port:${port}`, 'reserved');
      return port;
    }
  }
  throw new Error('unable to find free port (5900-5999)');
}

/** Waits for the one connection to `address`; rejects with `timeoutMessage` after `timeoutMs` or when the task is stopped. */
export function acceptOne(
  cluster: Cluster,
  address: string,
  task: TaskContext,
  timeoutMs: number,
  timeoutMessage: string,
): Promise<WebSocketPeer> {
  const map = registry(cluster);
  return new Promise<WebSocketPeer>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      task.signal.removeEventListener('abort', onAbort);
      if (map.get(address) === waiter) map.delete(address);
    };
    const waiter: Waiter = {
      resolve: (peer) => {
        done();
        resolve(peer);
      },
    };
    const onAbort = () => {
      done();
      reject(new Error('received interrupt'));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(timeoutMessage));
    }, timeoutMs);
    task.signal.addEventListener('abort', onAbort, { once: true });
    map.set(address, waiter);
  });
}

/** Frees a reserved address nobody will listen on (the request failed before its task started). */
export function release(cluster: Cluster, address: string): void {
  if (registry(cluster).get(address) === 'reserved') registry(cluster).delete(address);
}

/** Hands a websocket to the task listening on `address`; false when none does (connection refused). */
export function connect(cluster: Cluster, address: string, peer: WebSocketPeer): boolean {
  const waiter = registry(cluster).get(address);
  if (!waiter || waiter === 'reserved') return false;
  waiter.resolve(peer);
  return true;
}

/** Whether a task listens on `address` now (pveproxy's connect would succeed). */
export const listening = (cluster: Cluster, address: string) => {
  const waiter = registry(cluster).get(address);
  return waiter !== undefined && waiter !== 'reserved';
};
