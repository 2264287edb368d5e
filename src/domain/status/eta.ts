/**
 * How long a wave still runs, from measured throughput and the global limits. A wave pipelines its
 * VMs: vMotions (at most `limits.vmotion` at once) and imports (at most `limits.importPerStorage` at
 * once per storage) overlap, so the wave ends when the slower of the two has moved what is left. Waits
 * for people (approval, decisions) are not time ferry can estimate: they are counted, not added.
 */

/** Stages at or before which a VM still has its storage vMotion ahead (or running). */
const BEFORE_RELOCATE_END = new Set(['validate', 'networks', 'shell', 'relocate']);
/** Stages at or before which a VM still has its import ahead (or running). */
const BEFORE_IMPORT_END = new Set([...BEFORE_RELOCATE_END, 'awaiting-approval', 'shutdown', 'import']);
/** Stages that wait for a person. */
const WAITS_FOR_PERSON = new Set(['awaiting-approval', 'awaiting-decision']);

export interface EtaVm {
  state: 'pending' | 'running' | 'finished';
  stage?: string;
  /** The VM's disk bytes (what both the vMotion and the import move). */
  bytes?: number;
  /** Bytes of the running copy done already (from its heartbeat), when known. */
  copiedBytes?: number;
}

export interface EtaInput {
  vms: readonly EtaVm[];
  /** Mean rate of one import, measured from the wave's finished imports. */
  importBytesPerSecond?: number;
  /** Mean rate of one vMotion, measured from the wave's finished relocations. */
  relocateBytesPerSecond?: number;
  limits: { vmotion: number; importPerStorage: number };
}

export interface WaveEta {
  /** Seconds until the last import ends; absent when no rate is known for work that is left. */
  seconds?: number;
  relocate: PhaseEta;
  import: PhaseEta;
  /** VMs waiting for a person: their wait is not part of the estimate. */
  waitingForPeople: number;
}

export interface PhaseEta {
  bytesLeft: number;
  vmsLeft: number;
  /** Copies at once: the limit, or fewer when fewer VMs are left. */
  parallel: number;
  seconds?: number;
}

export function waveEta(input: EtaInput): WaveEta {
  const left = (ahead: (vm: EtaVm) => boolean, inPhase: string) => {
    const vms = input.vms.filter(ahead);
    const bytesLeft = vms.reduce(
      (sum, vm) => sum + Math.max(0, (vm.bytes ?? 0) - (vm.stage === inPhase ? (vm.copiedBytes ?? 0) : 0)),
      0,
    );
    return { vms, bytesLeft };
  };
  const relocate = left(
    (vm) => vm.state === 'pending' || (vm.state === 'running' && BEFORE_RELOCATE_END.has(vm.stage ?? 'validate')),
    'relocate',
  );
  const imports = left(
    (vm) => vm.state === 'pending' || (vm.state === 'running' && BEFORE_IMPORT_END.has(vm.stage ?? 'validate')),
    'import',
  );
  const relocateEta = phaseEta(
    relocate.bytesLeft,
    relocate.vms.length,
    input.limits.vmotion,
    input.relocateBytesPerSecond,
  );
  const importEta = phaseEta(
    imports.bytesLeft,
    imports.vms.length,
    input.limits.importPerStorage,
    input.importBytesPerSecond,
  );
  const known = [relocateEta, importEta].every((p) => p.seconds !== undefined);
  return {
    seconds: known ? Math.max(relocateEta.seconds!, importEta.seconds!) : undefined,
    relocate: relocateEta,
    import: importEta,
    waitingForPeople: input.vms.filter((vm) => vm.state === 'running' && WAITS_FOR_PERSON.has(vm.stage ?? '')).length,
  };
}

function phaseEta(bytesLeft: number, vmsLeft: number, limit: number, bytesPerSecond: number | undefined): PhaseEta {
  const parallel = Math.max(0, Math.min(Math.max(1, limit), vmsLeft));
  if (vmsLeft === 0 || bytesLeft === 0) return { bytesLeft, vmsLeft, parallel, seconds: 0 };
  if (!bytesPerSecond || bytesPerSecond <= 0) return { bytesLeft, vmsLeft, parallel };
  return { bytesLeft, vmsLeft, parallel, seconds: bytesLeft / (bytesPerSecond * parallel) };
}

/**
 * The mean rate of finished copies of one kind: total bytes over total seconds of those that took
 * time. Undefined when none did.
 */
export function meanRate(copies: ReadonlyArray<{ bytes: number; seconds: number }>): number | undefined {
  const timed = copies.filter((c) => c.seconds > 0 && c.bytes > 0);
  const seconds = timed.reduce((s, c) => s + c.seconds, 0);
  return seconds > 0 ? timed.reduce((s, c) => s + c.bytes, 0) / seconds : undefined;
}

/** A copy running now, from its heartbeat. */
export interface RunningCopy {
  phase: string;
  bytesDone?: number;
  bytesPerSecond?: number;
}

const PHASE_OF: Record<string, 'relocate' | 'import'> = {
  relocate: 'relocate',
  import: 'import',
  'live-import': 'import',
};

/**
 * The wave's ETA sharpened by the copies running now (their heartbeats): what they copied already is
 * not left, and before any copy of a kind has finished, their mean rate is the measured throughput.
 */
export function etaWithCopies(eta: WaveEta, copies: readonly RunningCopy[]): WaveEta {
  const phase = (name: 'relocate' | 'import'): PhaseEta => {
    const running = copies.filter((c) => PHASE_OF[c.phase] === name);
    const current = eta[name];
    if (running.length === 0 || current.parallel === 0) return current;
    const done = running.reduce((s, c) => s + (c.bytesDone ?? 0), 0);
    const bytesLeft = Math.max(0, current.bytesLeft - done);
    const rates = running.flatMap((c) => (c.bytesPerSecond ? [c.bytesPerSecond] : []));
    const rate =
      current.seconds !== undefined && current.seconds > 0
        ? current.bytesLeft / (current.seconds * current.parallel)
        : rates.length > 0
          ? rates.reduce((s, r) => s + r, 0) / rates.length
          : undefined;
    return { ...current, bytesLeft, ...(rate ? { seconds: bytesLeft / (rate * current.parallel) } : {}) };
  };
  const relocate = phase('relocate');
  const imports = phase('import');
  const known = relocate.seconds !== undefined && imports.seconds !== undefined;
  return {
    ...eta,
    relocate,
    import: imports,
    seconds: known ? Math.max(relocate.seconds!, imports.seconds!) : undefined,
  };
}
