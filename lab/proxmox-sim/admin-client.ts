import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { SimSettings } from './cluster';
import type { FaultSettings } from './faults';
import type { GuestNetworkHints } from './qemu/guest-network';
import type { QemuInstanceInfo } from './qemu/runtime';
import type { Segment } from './qemu/nic-wiring';
import type { ConnectionStats, RequestLogEntry } from './server';
import type { SimTask } from './tasks';

/** A task as the admin endpoint reports it: the simulated task without its log lines and promise. */
export type TaskLogEntry = Omit<SimTask, 'log' | 'done'>;

export interface SimLog {
  requests: RequestLogEntry[];
  tasks: TaskLogEntry[];
  connections: ConnectionStats;
}

/**
 * A client for the simulator's admin endpoint (`/_sim/…`), for tests that drive a simulator running in
 * another process (the lab): set faults and settings, read the state and the request/task log.
 */
export class SimulatorAdmin {
  private readonly dispatcher: Agent;
  private readonly authorization: string;

  constructor(
    private readonly url: string,
    caFile: string,
    token: { id: string; secret: string },
  ) {
    this.dispatcher = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } });
    this.authorization = `PVEAPIToken=${token.id}=${token.secret}`;
  }

  private async call<T>(method: 'GET' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const response = await request(`${this.url}/_sim/${path}`, {
      method,
      dispatcher: this.dispatcher,
      headers: {
        authorization: this.authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200)
      throw new Error(`simulator admin ${method} /_sim/${path}: HTTP ${response.statusCode} ${response.statusText}`);
    return (JSON.parse(text) as { data: T }).data;
  }

  setFaults(faults: FaultSettings): Promise<unknown> {
    return this.call('PUT', 'faults', faults);
  }

  clearFaults(): Promise<unknown> {
    return this.call('DELETE', 'faults');
  }

  setSettings(settings: Partial<SimSettings>): Promise<SimSettings> {
    return this.call('PUT', 'settings', settings);
  }

  setGuest(vmid: number, guest: { guestAcpi: boolean }): Promise<unknown> {
    return this.call('PUT', `vms/${vmid}`, guest);
  }

  state(): Promise<Record<string, unknown>> {
    return this.call('GET', 'state');
  }

  log(): Promise<SimLog> {
    return this.call('GET', 'log');
  }

  clearLog(): Promise<unknown> {
    return this.call('DELETE', 'log');
  }

  /** A VM's real QEMU (pid, accel, loopback forwards to the guest, serial log), or `{ running: false }`. */
  qemu(vmid: number): Promise<({ running: true } & QemuInstanceInfo) | { running: false; serialLog?: string }> {
    return this.call('GET', `vms/${vmid}/qemu`);
  }

  /** Every running QEMU of the simulator. */
  qemuList(): Promise<QemuInstanceInfo[]> {
    return this.call('GET', 'qemu');
  }

  /** The guest's addresses and the ports to forward from 127.0.0.1, from the VM's next start. */
  setGuestNetwork(vmid: number, hints: GuestNetworkHints): Promise<GuestNetworkHints> {
    return this.call('PUT', `vms/${vmid}/guest-network`, hints);
  }

  /** The same by MAC, for whichever VM gets a NIC with one of these MACs. */
  setGuestNetworksByMac(
    byMac: Record<string, GuestNetworkHints[string]>,
  ): Promise<Record<string, GuestNetworkHints[string]>> {
    return this.call('PUT', 'guest-networks', byMac);
  }

  /** Where subnets live on the lab's network (`null` forgets one); running guests follow at once. */
  setSubnets(homes: Record<string, Segment | null>): Promise<Record<string, Segment>> {
    return this.call('PUT', 'subnets', homes);
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/** API writes (anything but GET) in a request log. */
export function apiWrites(requests: RequestLogEntry[]): RequestLogEntry[] {
  return requests.filter((r) => r.method !== 'GET');
}

/** The most tasks matching `filter` that ran at the same time. */
export function peakConcurrency(tasks: TaskLogEntry[], filter: (t: TaskLogEntry) => boolean): number {
  const events = tasks
    .filter(filter)
    .flatMap((t) => [
      { at: t.startMs, delta: 1 },
      { at: t.endMs ?? Number.POSITIVE_INFINITY, delta: -1 },
    ])
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  let current = 0;
  let peak = 0;
  for (const e of events) peak = Math.max(peak, (current += e.delta));
  return peak;
}
