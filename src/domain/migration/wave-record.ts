import type { VmPlacement } from '../placement/vm-settings';
import type { MigrationOutcome, MigrationStage } from './status';
import type { VerificationSummary, WaveStatus, WaveVm, WaveVmState } from './wave';

/**
 * A wave's VMs as its result and its continue-as-new carry hold them: one short row per VM instead
 * of one object each, so a wave of 10,000 VMs stays well inside Temporal's 2 MB payload limit
 * (test/unit/domain/migration/wave-record.test.ts measures it). A finished VM keeps what `ferry
 * status` and `ferry report` need at wave level (name, workflow, VMID, stage, outcome, a short
 * reason, its placement, its guest's verdict and figures); its actions, timings and verification
 * checks stay in its own workflow. A VM not finished keeps everything the wave needs to start or
 * follow it.
 */
export interface WaveVmTable {
  format: typeof TABLE_FORMAT;
  columns: typeof COLUMNS;
  /** A row's workflow id is `null` when it is this prefix followed by the VM's moid. */
  workflowIdPrefix: string;
  /** Times in the rows are milliseconds after this one. */
  epoch: number;
  /** The distinct placements (a few per node and storage); a row names its own by its index here. */
  placements: VmPlacement[];
  rows: WaveVmRow[];
}

const TABLE_FORMAT = 'wave-vms/1';
const COLUMNS = [
  'moid',
  'name',
  'workflowId',
  'state',
  'stage',
  'outcome',
  'vmid',
  'startedAt',
  'finishedAt',
  'bytes',
  'placement',
  'verification',
  'error',
  'more',
] as const;

type Cell = string | number | null;
/** A verification: its state alone, or with its two figures (boot-to-agent, downtime seconds). */
type VerificationCell = string | [string, number | null, number | null];
/** The columns in order; trailing empty cells are left off. */
export type WaveVmRow = Array<Cell | VerificationCell | WaveVmMore>;

/** What a row holds besides its columns: the stage bookkeeping of VMs not finished, and rare fields. */
type WaveVmMore = Partial<Pick<WaveVm, 'stageSeq' | 'stageAt' | 'closedAs' | 'cancellation' | 'refusal'>>;

/** The reason a row keeps at most (the VM's own workflow has the whole of it). */
export const WAVE_ROW_ERROR_CHARS = 200;

/** A wave's status as its result and carry hold it: the VMs as a table. */
export type PackedWaveStatus = Omit<WaveStatus, 'vms'> & { vmTable: WaveVmTable };

export function packWaveStatus(status: WaveStatus): PackedWaveStatus {
  const { vms, ...rest } = status;
  return { ...rest, vmTable: packWaveVms(vms) };
}

/** The status with its VMs as objects, from a packed status or one that has them already (older results, queries). */
export function unpackWaveStatus(status: PackedWaveStatus | WaveStatus): WaveStatus {
  if (!('vmTable' in status)) return status;
  const { vmTable, ...rest } = status;
  return { ...rest, vms: unpackWaveVms(vmTable) };
}

export function packWaveVms(vms: readonly WaveVm[]): WaveVmTable {
  const workflowIdPrefix = commonPrefix(vms);
  const table: WaveVmTable = {
    format: TABLE_FORMAT,
    columns: COLUMNS,
    workflowIdPrefix,
    epoch: earliest(vms),
    placements: [],
    rows: [],
  };
  const placementIndex = new Map<string, number>();
  const indexOf = (placement: VmPlacement) => {
    const key = JSON.stringify(placement);
    if (!placementIndex.has(key)) placementIndex.set(key, table.placements.push(placement) - 1);
    return placementIndex.get(key)!;
  };
  table.rows = vms.map((vm) => packRow(vm, table, indexOf));
  return table;
}

export function unpackWaveVms(table: WaveVmTable): WaveVm[] {
  if (table.format !== TABLE_FORMAT)
    throw new Error(`wave VM table: unknown format ${String(table.format)} (expected ${TABLE_FORMAT})`);
  return table.rows.map((row) => unpackRow(row, table));
}

/** The earliest time in the VMs (0 when none has one): the rows' times count from it. */
function earliest(vms: readonly WaveVm[]): number {
  let min: number | undefined;
  for (const vm of vms)
    for (const t of [vm.startedAt, vm.finishedAt, vm.stageAt])
      if (t !== undefined && (min === undefined || t < min)) min = t;
  return min ?? 0;
}

/** The workflow id prefix the wave's VMs share (`migrate-<vcenter>-`), so rows need not repeat it. */
function commonPrefix(vms: readonly WaveVm[]): string {
  const first = vms.find((vm) => vm.workflowId.endsWith(vm.moid));
  return first ? first.workflowId.slice(0, first.workflowId.length - first.moid.length) : '';
}

function packRow(vm: WaveVm, table: WaveVmTable, placementIndex: (placement: VmPlacement) => number): WaveVmRow {
  const finished = vm.state === 'finished';
  const time = (t: number | undefined) => (t === undefined ? null : t - table.epoch);
  const more: WaveVmMore = {
    ...(!finished && vm.stageSeq !== undefined ? { stageSeq: vm.stageSeq } : {}),
    ...(!finished && vm.stageAt !== undefined ? { stageAt: time(vm.stageAt)! } : {}),
    ...(vm.closedAs !== undefined ? { closedAs: vm.closedAs } : {}),
    // Only VMs of a cancelled wave have one: who, the stage, and what it left (its shell, its disks).
    ...(vm.cancellation ? { cancellation: vm.cancellation } : {}),
    // Only refused VMs: why, shortened like an error.
    ...(vm.refusal !== undefined ? { refusal: shortReason(vm.refusal) } : {}),
  };
  const row: WaveVmRow = [
    vm.moid,
    vm.name,
    vm.workflowId === `${table.workflowIdPrefix}${vm.moid}` ? null : vm.workflowId,
    vm.state,
    vm.stage ?? null,
    vm.outcome ?? null,
    vm.vmid ?? null,
    time(vm.startedAt),
    time(vm.finishedAt),
    vm.bytes ?? null,
    vm.placement ? placementIndex(vm.placement) : null,
    vm.verification ? verificationCell(vm.verification) : null,
    vm.error === undefined ? null : shortReason(vm.error),
    Object.keys(more).length > 0 ? more : null,
  ];
  while (row.length > 0 && row[row.length - 1] === null) row.pop();
  return row;
}

function unpackRow(row: WaveVmRow, table: WaveVmTable): WaveVm {
  const cell = (column: (typeof COLUMNS)[number]) => row[COLUMNS.indexOf(column)] ?? undefined;
  const text = (column: (typeof COLUMNS)[number]) => cell(column) as string | undefined;
  const number = (column: (typeof COLUMNS)[number]) => cell(column) as number | undefined;
  const time = (t: number | undefined) => (t === undefined ? undefined : t + table.epoch);
  const more = (cell('more') ?? {}) as WaveVmMore;
  const moid = text('moid')!;
  const placement = number('placement');
  const verification = cell('verification') as VerificationCell | undefined;
  const fields: WaveVm = {
    moid,
    name: text('name')!,
    workflowId: text('workflowId') ?? `${table.workflowIdPrefix}${moid}`,
    state: text('state') as WaveVmState,
    stage: text('stage') as MigrationStage | undefined,
    outcome: text('outcome') as MigrationOutcome | undefined,
    vmid: number('vmid'),
    startedAt: time(number('startedAt')),
    finishedAt: time(number('finishedAt')),
    bytes: number('bytes'),
    error: text('error'),
    stageSeq: more.stageSeq,
    stageAt: time(more.stageAt),
    placement: placement === undefined ? undefined : table.placements[placement],
    verification: verification === undefined ? undefined : verificationOf(verification),
    closedAs: more.closedAs,
    cancellation: more.cancellation,
    refusal: more.refusal,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as unknown as WaveVm;
}

function verificationCell(v: VerificationSummary): VerificationCell {
  if (v.bootToAgentSeconds === undefined && v.downtimeSeconds === undefined) return v.state;
  return [v.state, v.bootToAgentSeconds ?? null, v.downtimeSeconds ?? null];
}

function verificationOf(cell: VerificationCell): VerificationSummary {
  if (typeof cell === 'string') return { state: cell as VerificationSummary['state'] };
  const [state, boot, downtime] = cell;
  return {
    state: state as VerificationSummary['state'],
    ...(boot !== null ? { bootToAgentSeconds: boot } : {}),
    ...(downtime !== null ? { downtimeSeconds: downtime } : {}),
  };
}

/** The first line of a failure, at most WAVE_ROW_ERROR_CHARS long. */
export function shortReason(error: string): string {
  const line = error.split('\n', 1)[0]!;
  return line.length <= WAVE_ROW_ERROR_CHARS ? line : `${line.slice(0, WAVE_ROW_ERROR_CHARS - 1)}…`;
}
