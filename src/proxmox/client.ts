import type { ProxmoxConfig } from '../config';
import { AclApi } from './acl';
import { AgentApi } from './agent';
import { CapacityApi } from './capacity';
import { ProxmoxApi } from './api';
import { VmConfigApi } from './config';
import { DisksApi } from './disks';
import { HaApi } from './ha';
import { NicsApi } from './nics';
import { NodesApi } from './nodes';
import { PowerApi } from './power';
import { SdnApi } from './sdn';
import { StorageApi } from './storage';
import { TaskWaiter, type WaitOptions } from './tasks';
import { ProxmoxTransport, type ProxmoxEndpoint } from './transport';
import { readVersion, type PveVersion } from './version';
import { VmsApi } from './vms';

/**
 * ferry's Proxmox VE client: one per endpoint, one keep-alive connection pool, every operation grouped
 * by what it acts on. Each operation checks then acts on a stable identity (VMID, slot, vnet name), so
 * repeating it after a retry or a replay does not do the work twice.
 */
export interface ProxmoxClientOptions extends ProxmoxEndpoint {
  /** Defaults for task waits. */
  taskPollIntervalMs?: number;
  taskTimeoutMs?: number;
}

export class ProxmoxClient {
  readonly transport: ProxmoxTransport;
  readonly tasks: TaskWaiter;
  readonly vms: VmsApi;
  readonly config: VmConfigApi;
  readonly nics: NicsApi;
  readonly disks: DisksApi;
  readonly power: PowerApi;
  readonly storage: StorageApi;
  readonly acl: AclApi;
  readonly sdn: SdnApi;
  readonly nodes: NodesApi;
  /** The guest agent and QMP's run state. */
  readonly agent: AgentApi;
  /** Room on nodes and storages, for placement. */
  readonly capacity: CapacityApi;
  /** The HA manager's resources, groups and rules. */
  readonly ha: HaApi;
  private versionPromise?: Promise<PveVersion>;

  constructor(options: ProxmoxClientOptions) {
    this.transport = new ProxmoxTransport(options);
    this.tasks = new TaskWaiter(this.transport, {
      pollIntervalMs: options.taskPollIntervalMs ?? 1000,
      timeoutMs: options.taskTimeoutMs ?? 600_000,
    });
    const api = new ProxmoxApi(this.transport, this.tasks, () => this.version());
    this.vms = new VmsApi(api);
    this.config = new VmConfigApi(api);
    this.nics = new NicsApi(api);
    this.disks = new DisksApi(api);
    this.power = new PowerApi(api);
    this.storage = new StorageApi(api);
    this.acl = new AclApi(api);
    this.sdn = new SdnApi(api);
    this.nodes = new NodesApi(api);
    this.agent = new AgentApi(api);
    this.capacity = new CapacityApi(api);
    this.ha = new HaApi(api);
  }

  /** `GET /version`, read once (a failed read is tried again next time). */
  version(): Promise<PveVersion> {
    this.versionPromise ??= readVersion(this.transport).catch((err: unknown) => {
      this.versionPromise = undefined;
      throw err;
    });
    return this.versionPromise;
  }

  waitForTask(upid: string, options?: WaitOptions) {
    return this.tasks.wait(upid, options);
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/** The endpoint as ferry.yaml + environment describe it (secrets only from the environment). */
export function endpointFromConfig(config: ProxmoxConfig): ProxmoxEndpoint {
  const auth: ProxmoxEndpoint['auth'] =
    config.auth === 'ticket'
      ? { kind: 'ticket', username: config.user, password: config.password! }
      : {
          kind: 'token',
          tokenId: config.tokenId!.includes('!') ? config.tokenId! : `${config.user}!${config.tokenId}`,
          secret: config.tokenSecret!,
        };
  return { host: config.host, port: config.port, validateCerts: config.validateCerts, caFile: config.caFile, auth };
}

export function createProxmoxClient(config: ProxmoxConfig, options: Partial<ProxmoxClientOptions> = {}): ProxmoxClient {
  return new ProxmoxClient({ ...endpointFromConfig(config), ...options });
}

/** The privileged client (ticket auth as `privilegedUser`), for the steps PVE allows only root: paths. */
export function createPrivilegedProxmoxClient(
  config: ProxmoxConfig,
  options: Partial<ProxmoxClientOptions> = {},
): ProxmoxClient {
  if (!config.privilegedPassword)
    throw new TypeError('createPrivilegedProxmoxClient needs proxmox.privilegedPassword (PROXMOX_PRIVILEGED_PASSWORD)');
  return new ProxmoxClient({
    ...endpointFromConfig(config),
    auth: { kind: 'ticket', username: config.privilegedUser, password: config.privilegedPassword },
    connections: 2,
    ...options,
  });
}
