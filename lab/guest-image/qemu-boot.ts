import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { qmpCommand } from '../qemu/qmp';
import { startServerProcess, type ServerProcess } from '../server-process';
import { GuestAgentClient } from './guest-agent-client';
import { OVMF_CODE, OVMF_CODE_2M, OVMF_VARS_2M_TEMPLATE, OVMF_VARS_TEMPLATE } from './paths';

const run = promisify(execFile);

/**
 * Boots a lab guest disk under QEMU the way Proxmox VE wires a VM (qemu-server): SeaBIOS on i440fx or
 * OVMF on q35 (read-only code + the VM's own vars), the disk on a virtio-scsi controller, virtio-net NICs
 * with the VM's MACs, the guest agent on a virtio-serial port behind a unix socket, QMP on another, the
 * serial console into a log file. Networking is QEMU user mode (no root, loopback only): the guest keeps
 * its own static address and host ports are forwarded to it.
 *
 * Acceleration: TCG unless asked otherwise. /dev/kvm exists on the lab machines but KVM does not boot
 * Linux there (../shared/notes/qemu-guests.md); `accel: 'auto'` uses KVM only after a short probe boot of
 * the guest's kernel proves it prints on the serial console.
 */
export type Firmware = 'seabios' | 'ovmf';
export type Accel = 'tcg' | 'kvm' | 'auto';

export interface HostForward {
  hostPort: number;
  guestAddress: string;
  guestPort: number;
}

export interface GuestNicWiring {
  mac: string;
  /** virtio (PVE's default), or vmxnet3 / e1000 as a VMware VM had them. */
  model?: 'virtio' | 'vmxnet3' | 'e1000';
  /** The user-mode network, e.g. 192.0.2.0/24; QEMU's side (gateway) is `host`. */
  net?: string;
  host?: string;
  forwards?: HostForward[];
}

export interface BootOptions {
  disk: string;
  firmware: Firmware;
  /** Sockets, the serial log and the OVMF vars go here. */
  workDir: string;
  nics: GuestNicWiring[];
  memoryMiB?: number;
  cpus?: number;
  accel?: Accel;
  diskFormat?: 'raw' | 'vmdk';
  /** The SMBIOS system UUID (PVE's smbios1 uuid); a random one by default. */
  uuid?: string;
  /** OVMF's code and vars template: the 4 MiB pair by default (PVE's `efitype=4m`); `2m` is the small pair. */
  ovmfSize?: '4m' | '2m';
  /** The NICs' option ROMs (iPXE, as QEMU and PVE load them); `false` passes `romfile=` (no network boot). */
  optionRoms?: boolean;
}

export interface RunningGuest {
  process: ServerProcess;
  startedAt: number;
  serialLog: string;
  agentSocket: string;
  qmpSocket: string;
  accel: 'tcg' | 'kvm';
  serial(): string;
  /** Waits until the guest agent answers; resolves with the milliseconds since QEMU was started. */
  waitForAgent(timeoutMs?: number): Promise<number>;
  /** A synced agent session (close it when done). */
  agent(): Promise<GuestAgentClient>;
  /** ACPI power button over QMP (what PVE's status/shutdown sends); resolves when QEMU has exited. */
  powerdown(timeoutMs?: number): Promise<void>;
  /** Kills QEMU (SIGKILL: the disk is a throwaway copy) and waits for it to exit. */
  kill(): Promise<void>;
}

const NIC_DEVICE = { virtio: 'virtio-net-pci', vmxnet3: 'vmxnet3', e1000: 'e1000' } as const;

/** QEMU's command line for a lab guest (pure: see bootGuest). */
export function qemuArgs(
  options: BootOptions & {
    accel: 'tcg' | 'kvm';
    ovmfVars: string;
    serialLog: string;
    agentSocket: string;
    qmpSocket: string;
  },
): string[] {
  const args = [
    '-name',
    path.basename(options.disk),
    '-machine',
    options.firmware === 'ovmf' ? 'q35' : 'pc',
    '-accel',
    options.accel,
    '-m',
    String(options.memoryMiB ?? 512),
    // As PVE gives every VM (smbios1: uuid=…): systemd takes the guest's machine-id from it instead of
    // waiting for the kernel's random pool, which under TCG fills seconds late.
    '-smbios',
    `type=1,uuid=${options.uuid ?? randomUUID()}`,
    '-smp',
    String(options.cpus ?? 1),
    '-nodefaults',
    '-display',
    'none',
    '-no-user-config',
    '-no-reboot',
    '-chardev',
    `file,id=serial0,path=${options.serialLog}`,
    '-serial',
    'chardev:serial0',
    '-qmp',
    `unix:${options.qmpSocket},server=on,wait=off`,
    '-chardev',
    `socket,id=qga0,path=${options.agentSocket},server=on,wait=off`,
    '-device',
    'virtio-serial,id=qga0-bus',
    '-device',
    'virtserialport,chardev=qga0,name=org.qemu.guest_agent.0',
    '-device',
    'virtio-scsi-pci,id=scsihw0',
    '-drive',
    `file=${options.disk},if=none,id=drive-scsi0,format=${options.diskFormat ?? 'raw'},cache=unsafe`,
    '-device',
    'scsi-hd,bus=scsihw0.0,drive=drive-scsi0,id=scsi0,bootindex=100',
  ];
  if (options.firmware === 'ovmf') {
    args.push(
      '-drive',
      `if=pflash,unit=0,format=raw,readonly=on,file=${ovmfPair(options.ovmfSize).code}`,
      '-drive',
      `if=pflash,unit=1,format=raw,file=${options.ovmfVars}`,
    );
  }
  options.nics.forEach((nic, i) => {
    const user = [`user,id=net${i}`, 'restrict=on'];
    if (nic.net) user.push(`net=${nic.net}`);
    if (nic.host) user.push(`host=${nic.host}`);
    for (const f of nic.forwards ?? [])
      user.push(`hostfwd=tcp:127.0.0.1:${f.hostPort}-${f.guestAddress}:${f.guestPort}`);
    const rom = options.optionRoms === false ? ',romfile=' : '';
    args.push(
      '-netdev',
      user.join(','),
      '-device',
      `${NIC_DEVICE[nic.model ?? 'virtio']},netdev=net${i},mac=${nic.mac},id=net${i}${rom}`,
    );
  });
  return args;
}

/** Debian's OVMF code and vars template of one size. */
export function ovmfPair(size: '4m' | '2m' = '4m'): { code: string; vars: string } {
  return size === '4m'
    ? { code: OVMF_CODE, vars: OVMF_VARS_TEMPLATE }
    : { code: OVMF_CODE_2M, vars: OVMF_VARS_2M_TEMPLATE };
}

let probed: Promise<'tcg' | 'kvm'> | undefined;

/** Whether KVM boots the guest's kernel here: it must print "Linux version" on the serial console within `timeoutMs`. */
export function probeKvm(vmlinuz: string, workDir: string, timeoutMs = 8000): Promise<'tcg' | 'kvm'> {
  probed ??= (async () => {
    if (!existsSync('/dev/kvm')) return 'tcg';
    mkdirSync(workDir, { recursive: true });
    const log = path.join(workDir, 'kvm-probe.log');
    rmSync(log, { force: true });
    const qemu = startServerProcess('qemu kvm probe', 'qemu-system-x86_64', [
      '-accel',
      'kvm',
      '-m',
      '256',
      '-nodefaults',
      '-display',
      'none',
      '-no-reboot',
      '-chardev',
      `file,id=s0,path=${log}`,
      '-serial',
      'chardev:s0',
      '-kernel',
      vmlinuz,
      '-append',
      'console=ttyS0 panic=-1',
    ]);
    try {
      await qemu.waitUntil(() => existsSync(log) && readFileSync(log, 'utf8').includes('Linux version'), timeoutMs);
      return 'kvm';
    } catch {
      return 'tcg';
    } finally {
      await qemu.stop({ signal: 'SIGKILL' });
    }
  })();
  return probed;
}

/** Starts QEMU on a guest disk; the guest boots in the background (see waitForAgent). */
export async function bootGuest(options: BootOptions & { vmlinuzForProbe?: string }): Promise<RunningGuest> {
  mkdirSync(options.workDir, { recursive: true });
  const serialLog = path.join(options.workDir, 'serial.log');
  const agentSocket = path.join(options.workDir, 'qga.sock');
  const qmpSocket = path.join(options.workDir, 'qmp.sock');
  const ovmfVars = path.join(options.workDir, 'ovmf-vars.fd');
  for (const f of [serialLog, agentSocket, qmpSocket]) rmSync(f, { force: true });
  if (options.firmware === 'ovmf' && !existsSync(ovmfVars)) copyFileSync(ovmfPair(options.ovmfSize).vars, ovmfVars);

  const wanted = options.accel ?? (process.env.FERRY_QEMU_ACCEL as Accel | undefined) ?? 'tcg';
  const accel =
    wanted === 'auto'
      ? options.vmlinuzForProbe
        ? await probeKvm(options.vmlinuzForProbe, options.workDir)
        : 'tcg'
      : wanted;

  const args = qemuArgs({ ...options, accel, ovmfVars, serialLog, agentSocket, qmpSocket });
  const startedAt = Date.now();
  const qemu = startServerProcess(`qemu ${path.basename(options.disk)}`, 'qemu-system-x86_64', args);
  const serial = () => (existsSync(serialLog) ? readFileSync(serialLog, 'utf8') : '');

  const guest: RunningGuest = {
    process: qemu,
    startedAt,
    serialLog,
    agentSocket,
    qmpSocket,
    accel,
    serial,
    async waitForAgent(timeoutMs = 60_000) {
      try {
        await qemu.waitUntil(async () => {
          if (!existsSync(agentSocket)) return false;
          try {
            (await GuestAgentClient.connect(agentSocket, 1000)).close();
            return true;
          } catch {
            return false;
          }
        }, timeoutMs);
      } catch (err) {
        throw new Error(
          `${(err as Error).message}\n--- serial console (last lines) ---\n${serial().split('\n').slice(-25).join('\n')}`,
        );
      }
      return Date.now() - startedAt;
    },
    agent: () => GuestAgentClient.connect(agentSocket, 5000),
    async powerdown(timeoutMs = 30_000) {
      await qmpCommand(qmpSocket, 'system_powerdown');
      const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs).unref());
      if ((await Promise.race([qemu.exited, timer])) === 'timeout')
        throw new Error(`the guest did not power off within ${timeoutMs} ms`);
    },
    kill: () => qemu.stop({ signal: 'SIGKILL' }),
  };
  return guest;
}

/** The QEMU version line (for reports). */
export async function qemuVersion(): Promise<string> {
  const { stdout } = await run('qemu-system-x86_64', ['--version']);
  return stdout.split('\n')[0] ?? '';
}
