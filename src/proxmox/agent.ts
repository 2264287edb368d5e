import { z } from 'zod';
import { type ProxmoxApi, vmPath } from './api';
import { pveBool, pveInt } from './quirks';

/**
 * The QEMU guest agent through the PVE API (`/nodes/{node}/qemu/{vmid}/agent/…`) and the VM's run state
 * (`status/current` with QMP's view). PVE wraps each agent reply as `{ result: … }`; the answers are
 * checked here, so an agent that answers something else fails with the field named.
 *
 * Errors (classified in errors.ts): "QEMU guest agent is not running" → ProxmoxAgentNotRunningError
 * (transient: the guest may still be booting); "No QEMU guest agent configured" →
 * ProxmoxAgentNotConfiguredError (invalid: the config must enable it first).
 */
const wrapped = <S extends z.ZodType>(result: S) => z.looseObject({ result }).transform((r) => r.result as z.output<S>);

const ipAddressSchema = z.looseObject({
  'ip-address': z.string(),
  'ip-address-type': z.enum(['ipv4', 'ipv6']),
  prefix: pveInt,
});

const interfaceSchema = z.looseObject({
  name: z.string(),
  'hardware-address': z.string().optional(),
  'ip-addresses': z.array(ipAddressSchema).optional(),
});

export const agentInterfacesSchema = wrapped(z.array(interfaceSchema));
export const agentPingSchema = wrapped(z.looseObject({}));
export const agentOsInfoSchema = wrapped(
  z.looseObject({
    id: z.string().optional(),
    name: z.string().optional(),
    'pretty-name': z.string().optional(),
    'kernel-release': z.string().optional(),
    'version-id': z.string().optional(),
  }),
);
export const agentFsInfoSchema = wrapped(
  z.array(
    z.looseObject({
      name: z.string(),
      mountpoint: z.string(),
      type: z.string(),
      'total-bytes': pveInt.optional(),
      'used-bytes': pveInt.optional(),
    }),
  ),
);

/** `POST …/agent/exec`: the guest's process id (PVE answers it unwrapped). */
export const agentExecSchema = z.looseObject({ pid: pveInt });
/** `GET …/agent/exec-status`: PVE decodes the base64 output and turns booleans into 1/0. */
export const agentExecStatusSchema = z.looseObject({
  exited: pveBool,
  exitcode: pveInt.optional(),
  'out-data': z.string().optional(),
  'err-data': z.string().optional(),
});

export interface GuestExecResult {
  exitcode: number;
  stdout: string;
  stderr: string;
}

export const vmRunStateSchema = z.looseObject({
  status: z.enum(['running', 'stopped']),
  /** QMP's status: running, paused, prelaunch, inmigrate, shutdown, internal-error, … (absent when stopped). */
  qmpstatus: z.string().optional(),
  uptime: pveInt.optional(),
  /** The config enables the guest agent. */
  agent: pveBool.optional(),
  lock: z.string().optional(),
});

export interface GuestNetworkInterface {
  name: string;
  /** Lower case; absent for interfaces without one (some agents omit it for loopback). */
  mac?: string;
  /** `address/prefix`. */
  addresses: Array<{ address: string; prefix: number; family: 'ipv4' | 'ipv6' }>;
}

export interface VmRunState {
  status: 'running' | 'stopped';
  qmpstatus?: string;
  uptimeSeconds: number;
  agentEnabled: boolean;
  lock?: string;
}

export class AgentApi {
  constructor(private readonly api: ProxmoxApi) {}

  /** status/current with QMP's status: `running` means the guest's CPUs run (not paused, not still starting). */
  async runState(node: string, vmid: number): Promise<VmRunState> {
    const s = await this.api.call('GET', `${vmPath(node, vmid)}/status/current`, {}, vmRunStateSchema);
    return {
      status: s.status,
      qmpstatus: s.qmpstatus,
      uptimeSeconds: s.uptime ?? 0,
      agentEnabled: s.agent ?? false,
      ...(s.lock ? { lock: s.lock } : {}),
    };
  }

  /** guest-ping: resolves when the agent answered; throws ProxmoxAgentNotRunningError while it does not. */
  async ping(node: string, vmid: number): Promise<void> {
    await this.api.call('POST', `${vmPath(node, vmid)}/agent/ping`, {}, agentPingSchema);
  }

  async networkInterfaces(node: string, vmid: number): Promise<GuestNetworkInterface[]> {
    const list = await this.api.call(
      'GET',
      `${vmPath(node, vmid)}/agent/network-get-interfaces`,
      {},
      agentInterfacesSchema,
    );
    return list.map((i) => ({
      name: i.name,
      ...(i['hardware-address'] ? { mac: i['hardware-address'].toLowerCase() } : {}),
      addresses: (i['ip-addresses'] ?? []).map((a) => ({
        address: a['ip-address'],
        prefix: a.prefix,
        family: a['ip-address-type'],
      })),
    }));
  }

  /**
   * Runs a program in the guest (guest-exec) and waits until it exited (guest-exec-status, asked every
   * `pollMs`); its output as the guest printed it. Fails when it runs longer than `timeoutMs`.
   */
  async exec(
    node: string,
    vmid: number,
    command: readonly string[],
    options: { timeoutMs?: number; pollMs?: number } = {},
  ): Promise<GuestExecResult> {
    const { pid } = await this.api.call('POST', `${vmPath(node, vmid)}/agent/exec`, { command }, agentExecSchema);
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    for (;;) {
      const s = await this.api.call('GET', `${vmPath(node, vmid)}/agent/exec-status`, { pid }, agentExecStatusSchema);
      if (s.exited) return { exitcode: s.exitcode ?? 0, stdout: s['out-data'] ?? '', stderr: s['err-data'] ?? '' };
      if (Date.now() > deadline)
        throw new Error(`${command.join(' ')} did not exit within ${options.timeoutMs ?? 30_000} ms in VM ${vmid}`);
      await new Promise((r) => setTimeout(r, options.pollMs ?? 200));
    }
  }

  async osInfo(node: string, vmid: number) {
    return this.api.call('GET', `${vmPath(node, vmid)}/agent/get-osinfo`, {}, agentOsInfoSchema);
  }

  async fsInfo(node: string, vmid: number) {
    return this.api.call('GET', `${vmPath(node, vmid)}/agent/get-fsinfo`, {}, agentFsInfoSchema);
  }
}
