import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  conversionPlan,
  currentStep,
  GUEST_PACKAGE_DIR,
  guestEdits,
  installPackagesScript,
  libguestfsEnv,
  atPriority,
  CANNOT_START,
  inOwnProcessGroup,
  overlayDisks,
  conversionRecordFolder,
  parseConverterOutput,
  virtV2vInPlace,
  type ConversionAccel,
  type ConversionFacts,
  type ConversionPriority,
  type ConversionPlan,
  type ConversionResult,
  type ConversionSettings,
  type ConversionStepTime,
  type GuestEdit,
  type GuestInspection,
  type OverlayDisk,
} from '../domain/conversion';
import { applianceAccel } from './accel';
import { ConversionError } from './errors';
import { GuestfishSession } from './guestfish';
import { inspectOpenGuest, openDisks } from './inspect';
import { backingOf, createOverlays, readRecord, removeOverlays, sourceStamp, writeRecord } from './overlays';
import { continueOrphanedConversions, conversionMarker } from './yield-to-cutovers';

export interface ConverterOptions {
  /** Where this worker mounts each Proxmox storage that holds VMware disks: storage id → local path of its root. */
  storageRoots: Readonly<Record<string, string>>;
  accel: ConversionAccel;
  /** The appliances' and virt-v2v's CPU priority (migration.conversion.priority; default low: see atPriority). */
  priority?: ConversionPriority;
}

/** A VM's disks on the storage that mounts the migration datastore. */
export interface VmDisks {
  vmid: number;
  storage: string;
  /** In slot order; `source` is the VMDK's path relative to the storage root. */
  disks: ReadonlyArray<{ slot: string; source: string }>;
}

export interface ConvertRequest extends VmDisks {
  facts: ConversionFacts;
  settings: ConversionSettings;
  signal?: AbortSignal;
  /** Called with the step under way (for heartbeats). */
  onProgress?: (step: string) => void;
}

const RECORD = 'conversion.json';
const PROCESSES = 'processes.json';

interface ConversionRecord {
  fingerprint: string;
  result: ConversionResult;
}

/**
 * Converts a VMware guest where its disks are, without writing VMware's files: overlays over the VMDKs,
 * ferry's own edits (NIC name pins, the guest agent, the UEFI fallback path) in one libguestfs session,
 * then virt-v2v-in-place over all of the VM's overlays together. Idempotent by the VMID: a finished
 * conversion of the same disks is answered from its record; anything else starts over on new overlays,
 * after stopping whatever a lost attempt left running.
 */
export class GuestConverter {
  constructor(private readonly options: ConverterOptions) {}

  private get priority(): ConversionPriority {
    return this.options.priority ?? 'low';
  }

  private root(storage: string): string {
    const root = this.options.storageRoots[storage];
    if (!root) {
      throw new ConversionError(
        `this worker does not mount storage ${storage} (migration.datastores has no convertPath or path for it)`,
        'invalid',
      );
    }
    return root;
  }

  /** Reads the guest on its VMDKs, read-only (libguestfs writes to a throw-away overlay of its own). */
  async inspect(vm: Omit<VmDisks, 'vmid'>, firmware: 'bios' | 'efi', agentPackages?: string): Promise<GuestInspection> {
    const root = this.root(vm.storage);
    const accel = await applianceAccel(this.options.accel);
    const g = await GuestfishSession.start(libguestfsEnv(accel), this.priority);
    try {
      await openDisks(
        g,
        vm.disks.map((d) => ({ path: path.join(root, d.source), format: 'vmdk' as const })),
        true,
      );
      const inspection = await inspectOpenGuest(g, firmware, true);
      return { ...inspection, agentFolders: agentFolders(agentPackages) };
    } finally {
      await g.close().catch(() => g.kill());
    }
  }

  async convert(request: ConvertRequest): Promise<ConversionResult> {
    const root = this.root(request.storage);
    const overlays = overlayDisks(request.storage, request.vmid, request.disks);
    const folder = path.join(root, conversionRecordFolder(request.vmid));
    const fingerprint = fingerprintOf(request, sourceStamp(root, overlays));
    const done = readRecord<ConversionRecord>(path.join(folder, RECORD));
    if (done?.fingerprint === fingerprint && overlays.every((o) => existsSync(path.join(root, o.file))))
      return { ...done.result, alreadyConverted: true };

    stopLeftovers(path.join(folder, PROCESSES));
    const started = Date.now();
    const accel = await applianceAccel(this.options.accel);
    const steps: ConversionStepTime[] = [];
    const timed = async <T>(
      step: ConversionStepTime['step'],
      work: () => Promise<T>,
      summary: (t: T) => string,
    ): Promise<T> => {
      request.onProgress?.(step);
      const t0 = Date.now();
      const value = await work();
      steps.push({ step, seconds: (Date.now() - t0) / 1000, summary: summary(value) });
      return value;
    };
    await timed(
      'overlays',
      () => createOverlays(root, overlays),
      () => `${overlays.length} qcow2 overlay(s) over the VMDKs`,
    );
    const overlayPaths = overlays.map((o) => path.join(root, o.file));
    const edited = await timed(
      'inspect-and-edit',
      () => this.inspectAndEdit(overlayPaths, request, accel, folder),
      ({ plan, edits }) =>
        plan.convert
          ? `${edits.length} guest edit(s): ${edits.map(describeEdit).join('; ') || 'none'}`
          : `nothing to convert: ${plan.reason}`,
    );
    const base = {
      alreadyConverted: false,
      plan: edited.plan,
      accel,
      overlays: overlays.map(({ slot, volume }) => ({ slot, volume })),
    };
    if (!edited.plan.convert) {
      await removeOverlays(root, overlays, [path.join(conversionRecordFolder(request.vmid), PROCESSES)]);
      return {
        ...base,
        converted: false,
        overlays: [],
        steps,
        seconds: (Date.now() - started) / 1000,
        log: { warnings: [], infos: [], steps: [] },
      };
    }
    const log = await timed(
      'virt-v2v',
      () => this.runVirtV2v(overlayPaths, request, accel, folder),
      (l) => `${l.steps.at(-1)?.text ?? 'done'} (${l.warnings.length} warning(s))`,
    );
    const result: ConversionResult = {
      ...base,
      converted: true,
      steps,
      seconds: (Date.now() - started) / 1000,
      log: {
        warnings: log.warnings,
        infos: log.infos,
        steps: log.steps.map((s) => `[${s.atSeconds.toFixed(1)}] ${s.text}`),
      },
    };
    writeRecord(path.join(folder, RECORD), { fingerprint, result } satisfies ConversionRecord);
    return result;
  }

  /**
   * The VM's overlays for an overlay cutover without conversion: made where missing, kept where they are
   * (a retry boots the same overlays, with what the guest wrote on them).
   */
  async prepareOverlays(vm: VmDisks): Promise<Array<{ slot: string; volume: string }>> {
    const root = this.root(vm.storage);
    const overlays = overlayDisks(vm.storage, vm.vmid, vm.disks);
    const missing: OverlayDisk[] = [];
    for (const o of overlays) {
      const file = path.join(root, o.file);
      if (!existsSync(file)) missing.push(o);
      else if ((await backingOf(file)) !== o.backing) {
        throw new ConversionError(
          `${o.file} exists on ${vm.storage} and is not ferry's overlay of ${o.source}; ferry does not overwrite it`,
          'policy',
        );
      }
    }
    await createOverlays(root, missing);
    return overlays.map(({ slot, volume }) => ({ slot, volume }));
  }

  /** Drops a VM's overlays and records (rollback, or once the disks are in Proxmox); what it removed. */
  async removeOverlays(vm: VmDisks): Promise<string[]> {
    const root = this.root(vm.storage);
    const overlays = overlayDisks(vm.storage, vm.vmid, vm.disks);
    const folder = conversionRecordFolder(vm.vmid);
    stopLeftovers(path.join(root, folder, PROCESSES));
    return await removeOverlays(root, overlays, [path.join(folder, RECORD), path.join(folder, PROCESSES)]);
  }

  private async inspectAndEdit(
    overlays: readonly string[],
    request: ConvertRequest,
    accel: 'kvm' | 'tcg',
    folder: string,
  ): Promise<{ plan: ConversionPlan; edits: GuestEdit[] }> {
    const g = await GuestfishSession.start(libguestfsEnv(accel), this.priority);
    writeRecord(path.join(folder, PROCESSES), { pids: [g.serverPid] });
    const abort = () => g.kill();
    request.signal?.addEventListener('abort', abort);
    try {
      await openDisks(
        g,
        overlays.map((p) => ({ path: p, format: 'qcow2' as const })),
        false,
      );
      const inspection = await inspectOpenGuest(g, request.facts.firmware, false);
      const plan = conversionPlan(request.facts, request.settings, {
        ...inspection,
        agentFolders: agentFolders(request.settings.agentPackages),
      });
      const edits = plan.convert ? guestEdits(plan, inspection.os?.packageFormat ?? '') : [];
      for (const edit of edits) await applyEdit(g, edit, request.settings.agentPackages);
      await g.close();
      return { plan, edits };
    } catch (err) {
      g.kill();
      if (request.signal?.aborted)
        throw new ConversionError('the conversion was cancelled', 'transient', { cause: err });
      throw err;
    } finally {
      request.signal?.removeEventListener('abort', abort);
    }
  }

  private async runVirtV2v(overlays: readonly string[], request: ConvertRequest, accel: 'kvm' | 'tcg', folder: string) {
    const command = virtV2vInPlace(overlays, { accel, virtioWin: request.settings.virtioWin });
    const run = inOwnProcessGroup(atPriority(command, this.priority));
    const child = spawn(run.program, run.args, {
      // The marker reaches virt-v2v's appliance and nbdkit: they pause when conversions yield to a cutover.
      env: { ...process.env, ...run.env, ...conversionMarker() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    writeRecord(path.join(folder, PROCESSES), { pids: [-child.pid!] });
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString();
      const step = currentStep(parseConverterOutput(output));
      if (step) request.onProgress?.(`virt-v2v: ${step}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const kill = () => killGroup(child.pid!);
    request.signal?.addEventListener('abort', kill);
    try {
      const code = await new Promise<number | null>((resolve, reject) => {
        child.on('error', (err) =>
          reject(new ConversionError(`cannot run ${run.program}: ${err.message}`, 'invalid', { cause: err })),
        );
        child.on('exit', (c) => resolve(c));
      });
      if (code === CANNOT_START)
        throw new ConversionError(
          `cannot run ${command.program} (Debian packages virt-v2v, and util-linux for chrt): ${output.trim().split('\n').at(-1)}`,
          'invalid',
        );
      const log = parseConverterOutput(output);
      if (request.signal?.aborted) throw new ConversionError('the conversion was cancelled', 'transient');
      if (code !== 0) {
        const last = log.steps.at(-1)?.text;
        throw new ConversionError(
          `virt-v2v-in-place failed${last ? ` at "${last}"` : ''}: ${log.error ?? `exit code ${code}`}`,
          'invalid',
          {
            details: { warnings: log.warnings, infos: log.infos, tail: output.split('\n').slice(-15).join('\n') },
          },
        );
      }
      return log;
    } finally {
      request.signal?.removeEventListener('abort', kill);
    }
  }
}

async function applyEdit(g: GuestfishSession, edit: GuestEdit, agentPackages: string | undefined): Promise<void> {
  switch (edit.kind) {
    case 'write':
      await g.call('mkdir-p', path.posix.dirname(edit.path));
      await g.call('write', edit.path, edit.content);
      return;
    case 'copy-efi':
      await g.call('mkdir-p', path.posix.dirname(`/boot/efi/${edit.to}`));
      await g.call('cp', `/boot/efi/${edit.from}`, `/boot/efi/${edit.to}`);
      return;
    case 'install-packages': {
      if (!agentPackages) throw new ConversionError('no migration.conversion.agentPackages to install from', 'invalid');
      await g.call('mkdir-p', GUEST_PACKAGE_DIR);
      await g.call('copy-in', path.join(agentPackages, edit.folder), GUEST_PACKAGE_DIR);
      try {
        await g.call('sh', installPackagesScript(edit.folder, edit.format));
      } finally {
        await g.try('rm-rf', GUEST_PACKAGE_DIR);
      }
    }
  }
}

function describeEdit(edit: GuestEdit): string {
  if (edit.kind === 'write') return `wrote ${edit.path}`;
  if (edit.kind === 'copy-efi') return `copied ${edit.from} to ${edit.to}`;
  return `installed the packages of ${edit.folder}`;
}

/** The folders of agent packages this worker has (debian-12, …). */
function agentFolders(dir: string | undefined): string[] {
  if (!dir) return [];
  try {
    return readdirSync(dir)
      .filter((f) => statSync(path.join(dir, f)).isDirectory())
      .sort();
  } catch {
    return [];
  }
}

function fingerprintOf(request: ConvertRequest, sources: unknown): string {
  const { timeoutMs: _t, ...settings } = request.settings;
  return createHash('sha256')
    .update(JSON.stringify({ vmid: request.vmid, facts: request.facts, settings, sources }))
    .digest('hex');
}

/** Stops the processes a lost attempt left running (a worker killed mid-conversion), before starting over. */
function stopLeftovers(file: string): void {
  const record = readRecord<{ pids: number[] }>(file);
  for (const pid of record?.pids ?? []) {
    const self = Math.abs(pid);
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${self}/cmdline`, 'utf8');
    } catch {
      continue; // gone
    }
    if (!/guestfish|virt-v2v/.test(cmdline)) continue; // the pid was reused by something else
    if (pid < 0) killGroup(self);
    else {
      try {
        process.kill(self, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  // A killed server's appliance, paused for a cutover when its worker died, would never see it: let it go on (and end).
  continueOrphanedConversions();
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone
  }
}
