import {
  newWaveStatus,
  packWaveStatus,
  packWaveVms,
  shortReason,
  unpackWaveStatus,
  unpackWaveVms,
  WAVE_ROW_ERROR_CHARS,
  type MigrationAction,
  type MigrationStage,
  type WaveStatus,
  type WaveVm,
} from '../../../../src/domain/migration';

/** Temporal's payload limit (blob size error), 2 MB. */
const PAYLOAD_LIMIT_BYTES = 2 * 1024 * 1024;
const T0 = 1_796_006_873_574;
const GiB = 1024 ** 3;
const PREFIX = 'migrate-vc-90d64587-';

const placement = (i: number) => ({
  node: `pve${(i % 12) + 1}`,
  disks: Array.from({ length: (i % 3) + 1 }, (_, d) => ({
    label: `Hard disk ${d + 1}`,
    storage: i % 2 ? 'ceph-ssd' : 'local-lvm',
  })),
  memory: { committedAfterBytes: 400 * GiB + (i % 12), limitBytes: 512 * GiB, memoryBytes: 16 * GiB },
});

/** A realistic VM of a large wave: names of ~20 characters, placed, and in the given state. */
function syntheticVm(i: number, state: WaveVm['state']): WaveVm {
  const moid = `vm-${10_000 + i}`;
  const base: WaveVm = {
    moid,
    name: `app-prod-web-${String(i).padStart(5, '0')}`,
    workflowId: `${PREFIX}${moid}`,
    state,
    bytes: ((i % 5) + 1) * 40 * GiB,
    placement: placement(i),
  };
  if (state === 'pending') return base;
  const started = { ...base, startedAt: T0 + i * 1000 };
  if (state === 'running')
    return { ...started, stage: 'awaiting-approval', stageSeq: 5, stageAt: T0 + i * 1000 + 60_000 };
  const finished = {
    ...started,
    vmid: 100_000 + i,
    finishedAt: T0 + i * 1000 + 3_600_000,
    stage: 'done' as MigrationStage,
  };
  if (i % 25 === 1)
    return {
      ...finished,
      stage: 'rolled-back',
      outcome: 'rolled-back',
      verification: { state: 'failed' },
      error: `guest check failed: ${'the address 198.51.100.7 did not answer on any interface; '.repeat(10)}`,
    };
  if (i % 25 === 2)
    return {
      ...finished,
      stage: 'import',
      error: `importDisk: ${'upid:pve3:0001:qmimport failed: storage full '.repeat(20)}\n    at stack frame`,
    };
  if (i % 25 === 3) return { ...finished, stage: 'refused', outcome: 'refused' };
  return {
    ...finished,
    outcome: 'migrated',
    verification: { state: 'verified', bootToAgentSeconds: 12.4, downtimeSeconds: 95.2 },
  };
}

/** A wave of `n` VMs, `finished` of them finished and a tenth of the rest running; 5 % refused at discovery. */
function syntheticWave(n: number, finished = n): WaveStatus {
  const vms = Array.from({ length: n }, (_, i) =>
    syntheticVm(i, i < finished ? 'finished' : i < finished + (n - finished) / 10 ? 'running' : 'pending'),
  );
  const refused = Array.from({ length: Math.round(n / 20) }, (_, i) => ({
    name: `legacy-db-${String(i).padStart(5, '0')}`,
    moid: `vm-${90_000 + i}`,
    refusals: [
      {
        code: 'snapshot' as const,
        subject: `legacy-db-${i}`,
        reason: `legacy-db-${i} has snapshots; consolidate or delete them in vCenter first (ferry never deletes VMware data)`,
      },
    ],
  }));
  return {
    ...newWaveStatus('wave-large'),
    stage: finished === n ? 'done' : 'migrating',
    vms,
    refused,
    approvals: [{ by: 'alice', reason: 'change 4711', at: T0, via: 'update', vms: 'all' }],
    importThroughputBytesPerSecond: 300 * 1024 ** 2,
    importTotals: { bytes: 1e15, seconds: 3e6 },
    relocateTotals: { bytes: 1e15, seconds: 2e6 },
  };
}

/** The wave's own actions: its SDN and a refusal per VM it refused. */
function waveActions(status: WaveStatus): MigrationAction[] {
  return [
    { kind: 'create-sdn-zone', zone: 'ferry', bridge: 'vmbr0' },
    { kind: 'create-vnet', vnet: 'v100', zone: 'ferry', tag: 100, alias: 'prod-web' },
    { kind: 'apply-sdn' },
    ...status.refused.map((r): MigrationAction => ({
      kind: 'refuse',
      vm: r.name,
      reasons: r.refusals.map((x) => x.reason),
    })),
  ];
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
/** The wave's result as the workflow returns it (sdn's own result aside: bounded by the VLANs, not the VMs). */
const resultBytes = (status: WaveStatus) =>
  bytesOf({ status: packWaveStatus(status), waveActions: waveActions(status) });

describe('packWaveVms / unpackWaveVms', () => {
  it('gives back every field of a VM not finished, and of a finished one (no timings kept)', () => {
    const running: WaveVm = {
      ...syntheticVm(7, 'running'),
      cancellation: {
        by: 'bob',
        reason: 'freeze',
        at: T0,
        via: 'update',
        removeShells: true,
        stage: 'relocate',
        effect: 'stops-now',
        left: { shell: 'kept' },
      },
    };
    const pending = syntheticVm(8, 'pending');
    const migrated = syntheticVm(9, 'finished');
    const [r, p, m] = unpackWaveVms(packWaveVms([running, pending, migrated]));
    expect(r).toEqual(running);
    expect(p).toEqual(pending);
    expect(m).toEqual(migrated);
    const unmeasured: WaveVm = { ...migrated, verification: { state: 'not-verified-skipped' } };
    const downtimeOnly: WaveVm = { ...migrated, verification: { state: 'failed', downtimeSeconds: 3 } };
    expect(unpackWaveVms(packWaveVms([unmeasured, downtimeOnly]))).toEqual([unmeasured, downtimeOnly]);
  });

  it("keeps a workflow id that does not follow the wave prefix, a closed-silently VM, a finished VM's cancellation and a refused VM's reason", () => {
    const other: WaveVm = {
      moid: 'vm-1',
      name: 'a',
      workflowId: 'migrate-elsewhere-vm-1',
      state: 'finished',
      closedAs: 'TERMINATED',
      error: 'closed (TERMINATED)',
      startedAt: T0,
      finishedAt: T0 + 5,
    };
    const usual: WaveVm = { moid: 'vm-2', name: 'b', workflowId: `${PREFIX}vm-2`, state: 'pending' };
    const third: WaveVm = { moid: 'vm-3', name: 'c', workflowId: `${PREFIX}vm-3`, state: 'pending' };
    const cancelled: WaveVm = {
      moid: 'vm-4',
      name: 'd',
      workflowId: `${PREFIX}vm-4`,
      state: 'finished',
      outcome: 'cancelled',
      cancellation: {
        by: 'bob',
        reason: 'freeze',
        at: T0,
        via: 'update',
        removeShells: false,
        stage: 'relocate',
        effect: 'stops-now',
        left: { shell: 'kept' },
      },
    };
    const refused: WaveVm = {
      moid: 'vm-5',
      name: 'e',
      workflowId: `${PREFIX}vm-5`,
      state: 'finished',
      stage: 'refused',
      outcome: 'refused',
      refusal: 'Hard disk 1 is on LocalDS_0, not on the migration datastore nfs-migration',
    };
    const table = packWaveVms([usual, other, third, cancelled, refused]);
    expect(table.workflowIdPrefix).toBe(PREFIX);
    const [u, o, , c, r] = unpackWaveVms(table);
    expect(u).toEqual(usual);
    expect(o).toEqual(other);
    expect(c).toEqual(cancelled);
    expect(r).toEqual(refused);
    // A long refusal is kept as short as an error.
    const long = unpackWaveVms(packWaveVms([{ ...refused, refusal: 'x'.repeat(500) }]))[0]!;
    expect(long.refusal).toHaveLength(WAVE_ROW_ERROR_CHARS);
  });

  it('stores each distinct placement once', () => {
    const table = packWaveVms(Array.from({ length: 600 }, (_, i) => syntheticVm(i, 'pending')));
    expect(table.placements.length).toBeLessThanOrEqual(12 * 2 * 3);
    expect(unpackWaveVms(table).map((vm) => vm.placement)).toEqual(Array.from({ length: 600 }, (_, i) => placement(i)));
  });

  it('an empty wave packs and unpacks', () => {
    expect(unpackWaveVms(packWaveVms([]))).toEqual([]);
  });

  it('refuses a table of an unknown format, naming it', () => {
    expect(() => unpackWaveVms({ ...packWaveVms([]), format: 'wave-vms/9' as never })).toThrow(
      'wave VM table: unknown format wave-vms/9 (expected wave-vms/1)',
    );
  });
});

describe('packWaveStatus / unpackWaveStatus', () => {
  it('round-trips the status and passes an unpacked one (older results, queries) through', () => {
    const status = syntheticWave(40, 30);
    const again = unpackWaveStatus(packWaveStatus(status));
    expect({ ...again, vms: [] }).toEqual({ ...status, vms: [] });
    expect(again.vms.map((vm) => [vm.name, vm.state, vm.stage, vm.outcome, vm.vmid, vm.placement?.node])).toEqual(
      status.vms.map((vm) => [vm.name, vm.state, vm.stage, vm.outcome, vm.vmid, vm.placement?.node]),
    );
    expect(unpackWaveStatus(status)).toBe(status);
  });
});

describe('shortReason', () => {
  it('keeps the first line, at most WAVE_ROW_ERROR_CHARS long', () => {
    expect(shortReason('disk full\n  at frame')).toBe('disk full');
    const long = shortReason('x'.repeat(1000));
    expect(long).toHaveLength(WAVE_ROW_ERROR_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('the wave result and carry at scale', () => {
  // Size is linear in the VMs: the figure per VM from two sizes, and what stays fixed.
  const perVm = (size: (n: number) => number) => {
    const [small, large] = [1000, 4000].map(size);
    const slope = (large! - small!) / 3000;
    return { slope, fixed: small! - slope * 1000, at4000: large! };
  };

  it('a finished wave: at most 170 bytes per VM, so 10,000 VMs fit in 2 MB with room', () => {
    const { slope, fixed, at4000 } = perVm((n) => resultBytes(syntheticWave(n)));
    const at10k = fixed + slope * 10_000;
    process.stdout.write(
      `wave result: ${slope.toFixed(1)} bytes per VM (${at4000} bytes at 4,000 VMs); 10,000 VMs: ${(at10k / 1e6).toFixed(2)} MB\n`,
    );
    expect(slope).toBeLessThanOrEqual(170);
    expect(at10k).toBeLessThan(0.8 * PAYLOAD_LIMIT_BYTES);
  });

  it('a carry in mid-wave (a third finished, a tenth of the rest running, the rest pending): as bounded', () => {
    const { slope, fixed } = perVm((n) => resultBytes(syntheticWave(n, Math.round(n / 3))));
    const at10k = fixed + slope * 10_000;
    process.stdout.write(
      `wave carry (mid-wave): ${slope.toFixed(1)} bytes per VM; 10,000 VMs: ${(at10k / 1e6).toFixed(2)} MB\n`,
    );
    expect(slope).toBeLessThanOrEqual(170);
    expect(at10k).toBeLessThan(0.8 * PAYLOAD_LIMIT_BYTES);
  });

  it('10,000 finished VMs, built and measured whole: under the limit', () => {
    expect(resultBytes(syntheticWave(10_000))).toBeLessThan(PAYLOAD_LIMIT_BYTES);
  });
});
