import { seededRandom } from '../proxmox-sim/prng';

/**
 * A moment to kill a worker: while an activity of this type runs (with, for a crash window, the
 * remote task's id already in its heartbeat), in a workflow of this type.
 */
export interface KillPoint {
  label: string;
  workflowType: 'migrateVm' | 'migrationWave' | 'sdnSync' | 'provisionVm' | 'provisionPlanned' | 'teardownVm';
  activity: string;
  /** Heartbeat field that must be set: the remote task was started and its id saved (a rejoin window). */
  heartbeat?: 'task' | 'upid';
}

/** Every stage of the workload, and each crash window the activities handle (a task id in the heartbeat: the retry rejoins it). */
export const KILL_POINTS: readonly KillPoint[] = [
  { label: 'wave: discover', workflowType: 'migrationWave', activity: 'discoverWave' },
  { label: 'wave: SDN', workflowType: 'sdnSync', activity: 'ensureSdn' },
  { label: 'migrate: create the shell', workflowType: 'migrateVm', activity: 'createVmShell' },
  { label: 'migrate: set a NIC', workflowType: 'migrateVm', activity: 'setNic' },
  { label: 'migrate: vMotion, before its task id is saved', workflowType: 'migrateVm', activity: 'relocateVm' },
  {
    label: 'migrate: vMotion, task id in the heartbeat (rejoin window)',
    workflowType: 'migrateVm',
    activity: 'relocateVm',
    heartbeat: 'task',
  },
  { label: 'migrate: shut the guest down', workflowType: 'migrateVm', activity: 'shutdownGuest' },
  { label: 'migrate: disk import, before its UPID is saved', workflowType: 'migrateVm', activity: 'importDisk' },
  {
    label: 'migrate: disk import, UPID in the heartbeat (rejoin window)',
    workflowType: 'migrateVm',
    activity: 'importDisk',
    heartbeat: 'upid',
  },
  { label: 'provision: VMID', workflowType: 'provisionVm', activity: 'requestVmid' },
  { label: 'provision: create the VM', workflowType: 'provisionVm', activity: 'createBareVm' },
  { label: 'provision: disk', workflowType: 'provisionVm', activity: 'ensureVmDisk' },
  { label: 'provision: NIC', workflowType: 'provisionVm', activity: 'ensureVmNic' },
  { label: 'provision: NetBox interface', workflowType: 'provisionVm', activity: 'ensureNetboxInterface' },
  { label: 'provision: NetBox address', workflowType: 'provisionVm', activity: 'assignNetboxIp' },
  { label: 'provision: DNS record', workflowType: 'provisionVm', activity: 'ensureDnsRecord' },
  { label: 'provision: mark staged', workflowType: 'provisionVm', activity: 'markNetboxStaged' },
  { label: 'teardown: shut down', workflowType: 'teardownVm', activity: 'shutdownVm' },
  { label: 'teardown: delete', workflowType: 'teardownVm', activity: 'deleteVm' },
  { label: 'teardown: DNS cleanup', workflowType: 'teardownVm', activity: 'cleanupDns' },
];

export interface ChaosSettings {
  seed: number;
  vms: number;
  kills: number;
  serverRestarts: number;
  /** Overall fault rate per dependency request (0–1). */
  faults: number;
  workers: number;
}

export interface ScheduledKill {
  point: KillPoint;
  /** Which worker process (0-based) dies. */
  worker: number;
  /** Restart the Temporal dev server (kill -9, same database) right after this kill. */
  restartServer: boolean;
}

/** The split of the workload: VMs migrated, NetBox VMs provisioned, and of those torn down again. */
export interface ChaosWorkload {
  migrate: number;
  provision: number;
  teardown: number;
}

export interface ChaosSchedule {
  settings: ChaosSettings;
  workload: ChaosWorkload;
  kills: ScheduledKill[];
  /** Seconds BIND is down (stopped, then started again) once provisioning reaches DNS. */
  bindOutageSeconds: number;
}

/** Fisher–Yates with the seeded PRNG. */
function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * The run's schedule from the seed alone: which kill points are used (every one when there are at
 * least as many kills as points, the rest repeats; else a seeded subset that keeps the rejoin
 * windows), which worker each kill hits, after which kills the Temporal server restarts, and how long
 * BIND is down.
 */
export function chaosSchedule(settings: ChaosSettings, points: readonly KillPoint[] = KILL_POINTS): ChaosSchedule {
  const random = seededRandom(settings.seed);
  const windows = points.filter((p) => p.heartbeat);
  const others = shuffled(
    points.filter((p) => !p.heartbeat),
    random,
  );
  let chosen: KillPoint[];
  if (settings.kills >= points.length) {
    const extra = Array.from(
      { length: settings.kills - points.length },
      () => points[Math.floor(random() * points.length)]!,
    );
    chosen = [...points, ...extra];
  } else {
    chosen = [...windows, ...others].slice(0, settings.kills);
  }
  const restartAfter = new Set(
    shuffled([...chosen.keys()], random).slice(0, Math.min(settings.serverRestarts, chosen.length)),
  );
  const kills = chosen.map((point, i) => ({
    point,
    worker: Math.floor(random() * settings.workers),
    restartServer: restartAfter.has(i),
  }));
  const provision = Math.max(2, Math.round(settings.vms * 0.4));
  return {
    settings,
    workload: { migrate: settings.vms - provision, provision, teardown: Math.max(1, Math.floor(provision / 2)) },
    kills,
    bindOutageSeconds: 3 + Math.floor(random() * 6),
  };
}

/** The schedule as printed at the start of a run. */
export function describeSchedule(schedule: ChaosSchedule): string[] {
  const { settings: s, workload: w } = schedule;
  return [
    `chaos: seed ${s.seed}; ${s.vms} VMs (${w.migrate} migrated, ${w.provision} provisioned, ${w.teardown} of them torn down); ${s.workers} workers; faults ${s.faults}`,
    ...schedule.kills.map(
      (k, i) =>
        `  kill ${String(i + 1).padStart(2)}: worker ${k.worker + 1} at "${k.point.label}"${k.restartServer ? ', then kill -9 and restart the Temporal server' : ''}`,
    ),
    `  BIND: stopped for ${schedule.bindOutageSeconds} s when provisioning reaches DNS, then started again`,
  ];
}
