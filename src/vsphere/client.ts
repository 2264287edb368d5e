import type { VsphereConfig } from '../config';
import type { VmRecord } from '../domain/inventory';
import { discover, type DiscoveryOptions, type DiscoveryResult } from './discovery';
import {
  powerOn,
  readVmDetail,
  readVmWithNetworks,
  relocateVmStorage,
  shutdownGuest,
  waitForRelocation,
  type PowerOnResult,
  type RelocateResult,
  type ShutdownOptions,
  type ShutdownResult,
  type VmDetail,
  type VmWithNetworks,
} from './operations';
import { latestRelocation, runningRelocations, type RecentTask } from './recent-tasks';
import { VimSession, type ServiceContent } from './session';
import type { WaitOptions } from './tasks';
import { SoapTransport, type TransportStats } from './transport';
import { VsphereTagging } from './tagging';

export interface VsphereClientOptions {
  /** Per-request timeout (default 120 s). */
  timeoutMs?: number;
}

/**
 * ferry's vCenter client (vim25 SOAP): discovery, one VM's hardware, storage vMotion, guest shutdown
 * and power-on. Logs in on first use and again, transparently, when the session expires. Holds the
 * password; nothing it returns contains it.
 */
export class VsphereClient {
  readonly session: VimSession;
  private readonly transport: SoapTransport;
  private tagging?: VsphereTagging;
  /** The configuration without the password (which only the private field below holds). */
  readonly config: Readonly<Omit<VsphereConfig, 'password'>>;
  /** An ES private field: util.inspect and JSON never show it. */
  readonly #config: VsphereConfig;

  constructor(config: VsphereConfig, options: VsphereClientOptions = {}) {
    this.#config = config;
    const { password: _password, ...shown } = config;
    this.config = shown;
    this.transport = new SoapTransport({
      host: config.host,
      port: config.port,
      validateCerts: config.validateCerts,
      caFile: config.caFile,
      timeoutMs: options.timeoutMs,
    });
    this.session = new VimSession(this.transport, { user: config.user, password: config.password });
  }

  get url(): string {
    return this.transport.url;
  }

  get tls(): 'verified' | 'not-verified' {
    return this.transport.tls;
  }

  /** Round trips and bytes so far. */
  get stats(): Readonly<TransportStats> {
    return this.transport.stats;
  }

  /** About the server (no login needed). */
  async about(): Promise<ServiceContent['about']> {
    return (await this.session.serviceContent()).about;
  }

  async login(): Promise<void> {
    await this.session.ensureLoggedIn();
  }

  /** VMs, distributed portgroups and datastores in scope (default: the configured discovery section). */
  discover(options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
    const d = this.#config.discovery;
    return discover(this.session, this.#config.host, {
      scope: options.scope ?? { datacenter: d.datacenter, folders: d.folders, clusters: d.clusters },
      pageSize: options.pageSize ?? d.pageSize,
    });
  }

  /** Moids of the VMs with a vSphere tag (`name` or `category/name`). */
  vmsTagged(tag: string): Promise<string[]> {
    this.tagging ??= new VsphereTagging(this.#config);
    return this.tagging.vmsTagged(tag);
  }

  /** One VM's hardware as it is now. */
  async readVm(moid: string): Promise<VmRecord> {
    return (await readVmDetail(this.session, moid)).vm;
  }

  readVmWithNetworks(moid: string): Promise<VmWithNetworks> {
    return readVmWithNetworks(this.session, moid);
  }

  readVmDetail(moid: string): Promise<VmDetail> {
    return readVmDetail(this.session, moid);
  }

  relocateVmStorage(moid: string, datastore: string, options?: WaitOptions): Promise<RelocateResult> {
    return relocateVmStorage(this.session, moid, datastore, options);
  }

  /** Waits for the RelocateVM_Task `task` an earlier call started (see waitForRelocation). */
  waitForRelocation(moid: string, task: string, options?: WaitOptions): Promise<void> {
    return waitForRelocation(this.session, moid, task, options);
  }

  /** The VM's storage vMotions still queued or running, from its `recentTask` (e.g. one whose starter died before it said so). */
  runningRelocations(moid: string): Promise<RecentTask[]> {
    return runningRelocations(this.session, moid);
  }

  /** The VM's latest storage vMotion (any state) among its recent tasks. */
  latestRelocation(moid: string): Promise<RecentTask | undefined> {
    return latestRelocation(this.session, moid);
  }

  shutdownGuest(moid: string, options: ShutdownOptions): Promise<ShutdownResult> {
    return shutdownGuest(this.session, moid, options);
  }

  powerOn(moid: string, options?: WaitOptions): Promise<PowerOnResult> {
    return powerOn(this.session, moid, options);
  }

  /** Logs out and closes the connections. */
  async close(): Promise<void> {
    await this.tagging?.close();
    await this.session.close();
  }
}
