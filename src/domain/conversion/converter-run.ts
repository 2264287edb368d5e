import type { ConversionAccel, ConversionPriority } from './settings';

/** A converter process to run: program, arguments and the environment it adds. */
export interface ConverterCommand {
  program: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * libguestfs's appliance is a small VM: `direct` runs QEMU itself (no libvirtd), and under TCG when KVM
 * does not work on the host (a probe decides for `auto`: see src/conversion/accel.ts).
 */
export function libguestfsEnv(accel: Exclude<ConversionAccel, 'auto'>): Record<string, string> {
  return { LIBGUESTFS_BACKEND: 'direct', ...(accel === 'tcg' ? { LIBGUESTFS_BACKEND_SETTINGS: 'force_tcg' } : {}) };
}

/**
 * virt-v2v-in-place over all of a VM's overlays at once (one guest, its disks in slot order: the boot
 * disk first), converting them where they are. Windows drivers come from VIRTIO_WIN.
 */
export function virtV2vInPlace(
  overlays: readonly string[],
  options: { accel: Exclude<ConversionAccel, 'auto'>; virtioWin?: string },
): ConverterCommand {
  if (overlays.length === 0) throw new Error('virt-v2v-in-place needs at least one disk');
  return {
    program: 'virt-v2v-in-place',
    args: ['-i', 'disk', '-if', 'qcow2', ...overlays],
    env: { ...libguestfsEnv(options.accel), ...(options.virtioWin ? { VIRTIO_WIN: options.virtioWin } : {}) },
  };
}

/**
 * The command at `priority`. `low` (the default) runs it under SCHED_IDLE (`chrt --idle 0`) and at nice
 * 19, inherited by every process it starts (the appliance's QEMU, nbdkit): a conversion then gets only
 * the CPU that nothing else on the host wants, so the cutovers, the worker, Temporal and the simulators
 * beside it keep theirs. SCHED_IDLE weighs only against processes of the same scheduling group (a
 * systemd service's cgroup, or without one the session's autogroup): the converter must stay in the
 * worker's session (see inOwnProcessGroup), not start one of its own.
 */
export function atPriority(command: ConverterCommand, priority: ConversionPriority): ConverterCommand {
  if (priority === 'normal') return command;
  return { ...command, program: 'chrt', args: ['--idle', '0', 'nice', '-n', '19', command.program, ...command.args] };
}

/** The exit code of inOwnProcessGroup when the program cannot be started (as a shell's 127). */
export const CANNOT_START = 127;

/**
 * The command in a process group of its own, in the caller's session: the whole tree (the appliance,
 * nbdkit) can be killed at once, a terminal's Ctrl-C does not reach it, and it stays in the worker's
 * scheduling group (Node's `detached` would call setsid, a session and autogroup of its own, where a
 * low priority weighs nothing against the worker's). Perl (Debian's essential perl-base) sets the group
 * and execs the program in the same process; a program that cannot start exits CANNOT_START with why.
 */
export function inOwnProcessGroup(command: ConverterCommand): ConverterCommand {
  const script = `setpgrp(0, 0); exec { $ARGV[0] } @ARGV; print STDERR "cannot run $ARGV[0]: $!\\n"; exit ${CANNOT_START};`;
  return { ...command, program: 'perl', args: ['-e', script, command.program, ...command.args] };
}

/** What a virt-v2v run printed, sorted out: its timed steps, warnings, informational lines and error. */
export interface ConverterLog {
  steps: Array<{ atSeconds: number; text: string }>;
  warnings: string[];
  infos: string[];
  error?: string;
}

// virt-v2v colours its step lines on a terminal (--colours); the ESC character, built so no regex holds a control character.
const ANSI_COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** Reads virt-v2v's own output (not -v -x): `[  12.3] Step`, `prog: warning: …`, `prog: error: …`, `prog: info`. */
export function parseConverterOutput(text: string, program = 'virt-v2v-in-place'): ConverterLog {
  const log: ConverterLog = { steps: [], warnings: [], infos: [] };
  const prefix = `${program}: `;
  let last: string[] | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(ANSI_COLOURS, '').trimEnd();
    const step = /^\[\s*(\d+(?:\.\d+)?)\]\s+(.*)$/.exec(line);
    if (step) {
      log.steps.push({ atSeconds: Number(step[1]), text: step[2]! });
      last = undefined;
    } else if (line.startsWith(`${prefix}warning: `)) {
      log.warnings.push(line.slice(prefix.length + 9));
      last = log.warnings;
    } else if (line.startsWith(`${prefix}error: `)) {
      log.error = line.slice(prefix.length + 7);
      last = undefined;
    } else if (line.startsWith(prefix)) {
      log.infos.push(line.slice(prefix.length));
      last = log.infos;
    } else if (line.trim() && last && /^\s/.test(raw)) {
      // A wrapped continuation of the last warning or info line.
      last[last.length - 1] += ` ${line.trim()}`;
    }
  }
  return log;
}

/** The step virt-v2v was on (for heartbeats and the UI). */
export function currentStep(log: ConverterLog): string | undefined {
  return log.steps.at(-1)?.text;
}
