import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseNic } from '../../../src/proxmox/nics';
import { parsePropertyString } from '../../../src/proxmox/property-string';
import { GuestAgentClient, GuestAgentError } from '../../guest-image/guest-agent-client';
import { guestImage } from '../../guest-image/paths';
import { probeKvm } from '../../guest-image/qemu-boot';
import { qmpCommand } from '../../qemu/qmp';
import { startServerProcess, type ServerProcess } from '../../server-process';
import type { Cluster, SimVm } from '../cluster';
import type { TaskContext } from '../tasks';
import { isBootableDisk, readDiskHead } from './bootable';
import {
  bootOrder,
  driveKeys,
  guestAgentSettings,
  isCdrom,
  isTrue,
  ovmfFiles,
  QEMU_BINARY,
  qemuCommandLine,
  type DriveSource,
} from './command-line';
import { cloudInitDrive, hintsFromCloudInit, writeCloudInitDrive } from './cloud-init';
import {
  guestPorts,
  hintsFromGuestDisk,
  planNetworks,
  type ForwardedPort,
  type GuestNetworkHints,
} from './guest-network';
import { SubnetHomes, syncForwards, wiringOf, type NicWiring } from './nic-wiring';
import { hostPhysicalBits } from './host-bits';

const run = promisify(execFile);

/** Volume id → what QEMU opens for it instead. */
export type DriveOverrides = ReadonlyMap<string, DriveSource>;

/**
 * The simulator's real QEMU guests: one `qemu-system-x86_64` child per running VM whose boot disk holds a
 * bootable image (bootable.ts), started from the VM's config (command-line.ts), its sockets, pid file and
 * serial console log in `<stateDir>/qemu-server/`. Power operations follow qemu-server's vm_start /
 * _do_vm_stop, and agent commands its QMPClient for the `qga` peer (guest-sync-delimited, then the
 * command, with PVE's per-command timeouts).
 *
 * QEMU runs as the simulator's own child, under `setpriv --pdeathsig SIGKILL`, so it dies with the
 * simulator even when that is killed outright; `stopAll` (the simulator's stop) kills and reaps every
 * child. When the guest powers off, QEMU exits and the VM counts as stopped (on PVE, qmeventd sends
 * `quit` after the guest's SHUTDOWN event).
 */
export interface QemuInstance {
  vmid: number;
  pid: number;
  process: ServerProcess;
  startedMs: number;
  accel: 'tcg' | 'kvm';
  argv: string[];
  bootDisk: string;
  forwards: ForwardedPort[];
  /** Each NIC's segment and link, followed live (nic-wiring.ts). */
  wiring: Map<string, NicWiring>;
  qmp: string;
  qga: string;
  /** VNC server socket (`-vnc unix:…,password=on`). */
  vnc: string;
  serialLog: string;
  qemuVersion?: string;
  /** Resolves when QEMU has exited and the runtime has forgotten it. */
  gone: Promise<void>;
}

/** What a running instance looks like through the admin API. */
export interface QemuInstanceInfo {
  vmid: number;
  pid: number;
  accel: 'tcg' | 'kvm';
  startedMs: number;
  bootDisk: string;
  serialLog: string;
  qmpSocket: string;
  agentSocket: string;
  forwards: ForwardedPort[];
  /** Each NIC's bridge/VLAN and link as the lab follows them. */
  nics: Record<string, NicWiring>;
  commandLine: string[];
}

/** A failed QGA exchange, worded as qemu-server's mon_cmd dies ("VM 100 qga command 'guest-ping' failed - got timeout"). */
export class AgentCommandError extends Error {}

const START_TIMEOUT_MS = 60_000;
const MAX_SOCKET_PATH = 107;

/** QMPClient's default timeouts for agent commands (seconds), 5 s for the rest. */
const QGA_TIMEOUTS_S: Record<string, number> = {
  'guest-fsfreeze-freeze': 3600,
  'guest-fsfreeze-thaw': 180,
  'guest-fstrim': 600,
  'guest-shutdown': 600,
};
/** Commands after which the agent may go away without answering (QMPClient's qga_allow_close_cmds). */
const QGA_ALLOW_CLOSE = new Set(['guest-shutdown', 'guest-suspend-ram', 'guest-suspend-disk', 'guest-suspend-hybrid']);

const runtimes = new WeakMap<Cluster, QemuRuntime>();
/** Gives a cluster its QEMU runtime (the simulator's server does this at start). */
export const attachQemuRuntime = (cluster: Cluster, runtime: QemuRuntime) => runtimes.set(cluster, runtime);
export const qemuRuntime = (cluster: Cluster): QemuRuntime | undefined => runtimes.get(cluster);

/** Every live runtime, so one exit hook can kill what is left if the process ends without stopAll. */
const live = new Set<QemuRuntime>();
let exitHook = false;
function killEverythingOnExit(runtime: QemuRuntime): void {
  live.add(runtime);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const r of live) r.killAllNow();
  });
}

export class QemuRuntime {
  private readonly instances = new Map<number, QemuInstance>();
  /** Guest addresses and ports declared through the admin API, by VMID. */
  readonly hints = new Map<number, GuestNetworkHints>();
  /** The same by MAC (lower case), for whichever VM has a NIC with it. */
  readonly hintsByMac = new Map<string, GuestNetworkHints[string]>();
  /** Where subnets live (`PUT /_sim/subnets`): a guest answers only on its address's segment. */
  readonly subnets = new SubnetHomes();

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
    killEverythingOnExit(this);
  }

  /** SIGKILL to every child, without waiting (the process 'exit' hook). */
  killAllNow(): void {
    for (const i of this.instances.values()) i.process.child.kill('SIGKILL');
  }

  paths(vmid: number) {
    const file = (name: string) => path.join(this.dir, name);
    return {
      qmp: file(`${vmid}.qmp`),
      qga: file(`${vmid}.qga`),
      pidFile: file(`${vmid}.pid`),
      serialLog: file(`${vmid}.serial.log`),
      vnc: file(`${vmid}.vnc`),
      temporaryEfivars: file(`${vmid}-ovmf.fd`),
    };
  }

  get(vmid: number): QemuInstance | undefined {
    return this.instances.get(vmid);
  }

  info(vmid: number): QemuInstanceInfo | undefined {
    const i = this.instances.get(vmid);
    if (!i) return undefined;
    return {
      vmid,
      pid: i.pid,
      accel: i.accel,
      startedMs: i.startedMs,
      bootDisk: i.bootDisk,
      serialLog: i.serialLog,
      qmpSocket: i.qmp,
      agentSocket: i.qga,
      forwards: i.forwards,
      nics: Object.fromEntries(i.wiring),
      commandLine: [QEMU_BINARY, ...i.argv],
    };
  }

  list(): QemuInstanceInfo[] {
    return [...this.instances.keys()].map((vmid) => this.info(vmid)!);
  }

  /**
   * Host path and format of a drive's `file` (a volume id or an absolute path); `instead` names what QEMU
   * opens in place of some volumes (a live import's overlays, live-restore.ts).
   */
  private async resolveDrive(
    cluster: Cluster,
    node: string,
    file: string,
    instead?: DriveOverrides,
  ): Promise<DriveSource> {
    const replacement = instead?.get(file);
    if (replacement) return replacement;
    if (file.startsWith('/')) {
      const { stdout } = await run('qemu-img', ['info', '--output=json', file]);
      return { path: file, format: (JSON.parse(stdout) as { format: string }).format };
    }
    const volume = cluster.storages.resolve(file, node);
    return { path: volume.file, format: volume.format === 'iso' ? 'raw' : volume.format };
  }

  /**
   * The VM's boot disk when it holds a bootable image: the first disk (not a CD-ROM) of `boot: order=`
   * (or the legacy `bootdisk`; every disk when the config names none) that bootable.ts accepts.
   */
  async bootDisk(
    cluster: Cluster,
    vm: SimVm,
    instead?: DriveOverrides,
  ): Promise<{ key: string; source: DriveSource } | undefined> {
    const order = bootOrder(vm.config);
    const disks = driveKeys(vm.config).filter((k) => !isCdrom(parsePropertyString(vm.config[k]!, 'file')));
    const named = disks.filter((k) => order[k] !== undefined).sort((a, b) => order[a]! - order[b]!);
    const candidates = vm.config.boot === undefined && vm.config.bootdisk === undefined ? disks : named;
    for (const key of candidates) {
      const file = parsePropertyString(vm.config[key]!, 'file').file;
      if (!file || file === 'none') continue;
      let source: DriveSource;
      try {
        source = await this.resolveDrive(cluster, vm.node, file, instead);
      } catch {
        continue;
      }
      if (existsSync(source.path) && (await isBootableDisk(source.path, source.format))) return { key, source };
    }
    return undefined;
  }

  private async accel(config: Record<string, string>): Promise<'tcg' | 'kvm'> {
    if (config.kvm !== undefined && !isTrue(config.kvm)) return 'tcg';
    const wanted = process.env.FERRY_QEMU_ACCEL ?? 'tcg';
    if (wanted === 'kvm') return 'kvm';
    if (wanted !== 'auto') return 'tcg';
    try {
      return await probeKvm(guestImage().vmlinuz, this.dir);
    } catch {
      return 'tcg';
    }
  }

  /**
   * qemu-server creates an efidisk with the OVMF vars template in it; the simulator allocates it empty.
   * A vars store without a firmware volume header ("_FVH" at offset 40) gets the template now.
   */
  private async prepareEfivars(efidisk: DriveSource, template: string): Promise<void> {
    const head = await readDiskHead(efidisk.path, efidisk.format, 64);
    if (head.subarray(40, 44).toString('latin1') === '_FVH') return;
    await run('qemu-img', ['convert', '-n', '-f', 'raw', '-O', efidisk.format, template, efidisk.path]);
  }

  /** The NICs whose MACs have declared addresses. */
  private macHints(config: Record<string, string>): GuestNetworkHints {
    const hints: GuestNetworkHints = {};
    for (const [key, value] of Object.entries(config)) {
      if (!/^net\d+$/.test(key)) continue;
      const hint = this.hintsByMac.get(parseNic(value).macaddr.toLowerCase());
      if (hint) hints[key] = hint;
    }
    return hints;
  }

  /**
   * Where the guest's addresses come from when no test declared them: its cloud-init drive, made now as
   * qemu-server makes it at start (cloud-init.ts), and the lab guest's own settings on its boot disk,
   * which win for the NICs they name.
   */
  private async guestHints(
    vm: SimVm,
    boot: DriveSource,
    sources: Map<string, DriveSource>,
  ): Promise<GuestNetworkHints> {
    let cloudInit: GuestNetworkHints = {};
    const drive = cloudInitDrive(vm.vmid, vm.config);
    const volume = drive && sources.get(drive.volid);
    if (volume) {
      await writeCloudInitDrive(vm.vmid, vm.config, volume);
      cloudInit = hintsFromCloudInit(vm.config, guestPorts());
    }
    const own = boot.format === 'raw' ? await hintsFromGuestDisk(boot.path, vm.config) : {};
    return { ...cloudInit, ...own };
  }

  /** vm_start for a VM with a bootable disk: builds the command line, starts QEMU, waits for its monitor. */
  async start(
    cluster: Cluster,
    vm: SimVm,
    task: TaskContext,
    onExit: () => void,
    instead?: DriveOverrides,
  ): Promise<QemuInstance> {
    const boot = await this.bootDisk(cluster, vm, instead);
    if (!boot) throw new Error(`VM ${vm.vmid}: no bootable disk`);
    const paths = this.paths(vm.vmid);
    for (const p of [paths.qmp, paths.qga, paths.vnc]) {
      if (p.length > MAX_SOCKET_PATH)
        throw new Error(
          `start failed: socket path '${p}' is longer than ${MAX_SOCKET_PATH} bytes (move the simulator's state dir)`,
        );
    }
    for (const p of [paths.qmp, paths.qga, paths.vnc, paths.pidFile]) rmSync(p, { force: true });
    if (existsSync(paths.serialLog)) truncateSync(paths.serialLog);

    const config = vm.config;
    const sources = new Map<string, DriveSource>();
    for (const key of [...driveKeys(config), ...(config.efidisk0 ? ['efidisk0'] : [])]) {
      const file = parsePropertyString(config[key]!, 'file').file;
      if (file && file !== 'none' && file !== 'cdrom')
        sources.set(file, await this.resolveDrive(cluster, vm.node, file, instead));
    }
    let ovmfVarsSize: number | undefined;
    if (config.bios === 'ovmf') {
      const efidisk = config.efidisk0 ? parsePropertyString(config.efidisk0, 'file') : undefined;
      const { varsTemplate } = ovmfFiles(efidisk);
      ovmfVarsSize = statSync(varsTemplate).size;
      if (efidisk) await this.prepareEfivars(sources.get(efidisk.file!)!, varsTemplate);
      else copyFileSync(varsTemplate, paths.temporaryEfivars);
    }

    const hints = this.hints.get(vm.vmid) ?? {
      ...(await this.guestHints(vm, boot.source, sources)),
      ...this.macHints(config),
    };
    const wiring = wiringOf(config);
    const { networks, forwards } = await planNetworks(config, hints, (nic, address) => {
      const w = wiring.get(nic);
      return !!w && w.linkUp && this.subnets.reaches(address, w.segment);
    });
    const accel = await this.accel(config);
    const { argv, warnings } = qemuCommandLine({
      vmid: vm.vmid,
      config,
      accel,
      paths,
      networks,
      ovmfVarsSize,
      hostBits: hostPhysicalBits(),
      resolveDrive: (file) => {
        const source = sources.get(file);
        if (!source) throw new Error(`unable to resolve drive '${file}'`);
        return source;
      },
    });
    for (const w of warnings) task.warn(w);

    const qemu = startServerProcess(`QEMU of VM ${vm.vmid}`, 'setpriv', [
      '--pdeathsig',
      'SIGKILL',
      '--',
      QEMU_BINARY,
      ...argv,
    ]);
    const startedMs = Date.now();
    try {
      await qemu.waitUntil(async () => {
        if (!existsSync(paths.qmp)) return false;
        try {
          await qmpCommand(paths.qmp, 'query-status', undefined, { timeoutMs: 2000 });
          return true;
        } catch {
          return false;
        }
      }, START_TIMEOUT_MS);
    } catch (err) {
      await qemu.stop({ signal: 'SIGKILL' });
      for (const line of qemu.output().trim().split('\n').filter(Boolean)) task.log(`QEMU: ${line}`);
      const code = await qemu.exited;
      throw new Error(
        /exited with code/.test((err as Error).message)
          ? `start failed: QEMU exited with code ${code}`
          : `start failed: QEMU did not answer on its monitor socket within ${START_TIMEOUT_MS / 1000} s`,
      );
    }

    let forget!: () => void;
    const instance: QemuInstance = {
      vmid: vm.vmid,
      pid: qemu.child.pid!,
      process: qemu,
      startedMs,
      accel,
      argv,
      bootDisk: boot.key,
      forwards,
      wiring,
      qmp: paths.qmp,
      qga: paths.qga,
      vnc: paths.vnc,
      serialLog: paths.serialLog,
      gone: new Promise<void>((resolve) => (forget = resolve)),
    };
    instance.qemuVersion = await qmpCommand(paths.qmp, 'query-version', undefined, { timeoutMs: 5000 })
      .then((v) => {
        const q = (v as { qemu?: { major: number; minor: number; micro: number } }).qemu;
        return q ? `${q.major}.${q.minor}.${q.micro}` : undefined;
      })
      .catch(() => undefined);
    this.instances.set(vm.vmid, instance);
    // vm_start: a NIC with link_down=1 starts with its link down.
    for (const [nic, w] of wiring)
      if (!w.linkUp) await qmpCommand(paths.qmp, 'set_link', { name: nic, up: false }, { timeoutMs: 5000 });
    void qemu.exited.then(() => {
      if (this.instances.get(vm.vmid) === instance) this.instances.delete(vm.vmid);
      for (const p of [paths.qmp, paths.qga, paths.vnc, paths.pidFile, paths.temporaryEfivars])
        rmSync(p, { force: true });
      onExit();
      forget();
    });
    return instance;
  }

  /** Installs or removes a running guest's forwards as its NICs' wiring and the subnets' homes say. */
  async rewire(vmid: number): Promise<void> {
    const i = this.instances.get(vmid);
    if (i) await syncForwards(i.qmp, i.forwards, i.wiring, this.subnets);
  }

  /** The same for every running guest (a subnet moved). */
  async rewireAll(): Promise<void> {
    for (const vmid of this.instances.keys()) await this.rewire(vmid);
  }

  isRunning(vmid: number): boolean {
    return this.instances.has(vmid);
  }

  /** query-status's `status` (running, paused, shutdown, …), or undefined when the monitor does not answer. */
  async qmpStatus(vmid: number): Promise<string | undefined> {
    const i = this.instances.get(vmid);
    if (!i) return undefined;
    try {
      return ((await qmpCommand(i.qmp, 'query-status', undefined, { timeoutMs: 3000 })) as { status?: string }).status;
    } catch {
      return undefined;
    }
  }

  /** Seconds since the process started, from /proc as qemu-server's vmstatus reads it. */
  uptime(vmid: number): number {
    const i = this.instances.get(vmid);
    if (!i) return 0;
    try {
      const stat = readFileSync(`/proc/${i.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const startTicks = Number(fields[19]); // field 22 (starttime), counted after "pid (comm) "
      const systemUptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
      return Math.max(0, Math.floor(systemUptime - startTicks / 100));
    } catch {
      return Math.floor((Date.now() - i.startedMs) / 1000);
    }
  }

  /**
   * One agent command the way qemu-server's mon_cmd sends it to the `qga` peer: connect, sync, command,
   * bounded by the command's timeout. Resolves with the agent's `return`, or `{ error: {class, desc} }`
   * when the agent answered with an error (PVE hands that back unchanged). Rejects with
   * AgentCommandError when the exchange fails.
   */
  async agentCommand(
    vmid: number,
    command: string,
    args?: Record<string, unknown>,
    timeoutS?: number,
  ): Promise<unknown> {
    const fail = (why: string) => new AgentCommandError(`VM ${vmid} qga command '${command}' failed - ${why}`);
    const i = this.instances.get(vmid);
    if (!i) throw new AgentCommandError(`VM ${vmid} not running`);
    if (!existsSync(i.qga)) throw new AgentCommandError('unable to open monitor socket');
    const timeoutMs = (timeoutS ?? QGA_TIMEOUTS_S[command] ?? 5) * 1000;
    const deadline = Date.now() + timeoutMs;
    let client: GuestAgentClient;
    try {
      client = await GuestAgentClient.connect(i.qga, timeoutMs);
    } catch (err) {
      throw fail(
        /did not answer/.test((err as Error).message)
          ? 'got timeout'
          : `unable to connect to VM ${vmid} qga socket - ${(err as Error).message}`,
      );
    }
    try {
      return await client.execute(command, args, Math.max(1, deadline - Date.now()));
    } catch (err) {
      if (err instanceof GuestAgentError) return { error: { class: err.errorClass, desc: err.desc } };
      const message = (err as Error).message;
      if (/socket closed/.test(message)) {
        if (QGA_ALLOW_CLOSE.has(command)) return undefined;
        throw fail('client closed connection');
      }
      throw fail(/no answer/.test(message) ? 'got timeout' : message);
    } finally {
      client.close();
    }
  }

  /** qemu-server's qga_check_running: guest-ping with a 3 s timeout. */
  async agentRunning(vmid: number): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      await this.agentCommand(vmid, 'guest-ping', undefined, 3);
      return { ok: true };
    } catch (err) {
      return { ok: false, error: (err as Error).message };
    }
  }

  private async exitedWithin(i: QemuInstance, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const gone = await Promise.race([
      i.gone.then(() => true),
      new Promise<false>((r) => (timer = setTimeout(() => r(false), ms))),
    ]);
    clearTimeout(timer);
    return gone || !this.instances.has(i.vmid);
  }

  /**
   * qemu-server's _do_vm_stop for a running QEMU: `shutdown` asks the guest (the agent's guest-shutdown
   * when the agent is enabled and answers, else ACPI system_powerdown), otherwise QMP `quit`; then waits
   * up to `timeoutS` (60) for QEMU to end; on timeout kills with `force`, or fails "VM quit/powerdown
   * failed - got timeout". Warnings go to the task log as PVE's do.
   */
  async doVmStop(
    vm: SimVm,
    options: { shutdown: boolean; force: boolean; timeoutS?: number },
    task: TaskContext,
  ): Promise<void> {
    const i = this.instances.get(vm.vmid);
    if (!i) return;
    let failed: Error | undefined;
    try {
      if (options.shutdown) {
        let viaAgent = false;
        if (guestAgentSettings(vm.config.agent)) {
          const agent = await this.agentRunning(vm.vmid);
          if (agent.ok) viaAgent = true;
          else task.warn(`QEMU Guest Agent is not running - ${agent.error}`);
        }
        if (viaAgent) await this.agentCommand(vm.vmid, 'guest-shutdown', undefined, options.timeoutS);
        else await qmpCommand(i.qmp, 'system_powerdown', undefined, { timeoutMs: 5000 });
      } else {
        await qmpCommand(i.qmp, 'quit', undefined, { timeoutMs: 60_000, allowClose: true });
      }
    } catch (err) {
      failed = err instanceof Error ? err : new Error(String(err));
    }

    if (!failed) {
      const timeoutS = options.timeoutS ?? 60;
      if (await this.exitedWithin(i, timeoutS * 1000)) return;
      if (!options.force) throw new Error('VM quit/powerdown failed - got timeout');
      task.warn('VM still running - terminating now with SIGTERM');
      i.process.child.kill('SIGTERM');
    } else {
      if (!this.instances.has(vm.vmid)) {
        task.warn('Unexpected: VM shutdown command failed, but VM not running anymore..');
        return;
      }
      if (!options.force) throw new Error('VM quit/powerdown failed');
      task.warn('VM quit/powerdown failed - terminating now with SIGTERM');
      i.process.child.kill('SIGTERM');
    }
    if (await this.exitedWithin(i, 10_000)) return;
    task.warn('VM still running - terminating now with SIGKILL');
    i.process.child.kill('SIGKILL');
    await i.gone;
  }

  /** After a VM is destroyed: kill a leftover QEMU (there should be none) and forget its settings. */
  async release(vmid: number): Promise<void> {
    const i = this.instances.get(vmid);
    if (i) {
      i.process.child.kill('SIGKILL');
      await i.gone;
    }
    this.hints.delete(vmid);
  }

  /** Kills every QEMU child and waits until each has exited (the simulator's stop). */
  async stopAll(): Promise<void> {
    const all = [...this.instances.values()];
    for (const i of all) i.process.child.kill('SIGKILL');
    await Promise.all(all.map((i) => i.gone));
    live.delete(this);
  }
}
