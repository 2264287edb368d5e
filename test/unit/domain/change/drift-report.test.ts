import { driftReportOf, vmDriftOf, vmDrifts, type Baseline, type VmDrift } from '../../../../src/domain/change';
import { planFor } from './fixtures';

/** What ferry applied last: memory 2048, scsi0 and net0 present. */
const BASELINE: Baseline = {
  version: 1,
  applied: { memory: '2048', scsi0: 'present', net0: 'present' },
  accepted: {},
};
const VM = { netboxId: 42, name: 'web1', vmid: 9001 };

describe('the drift report: each VM plan kept by direction, small', () => {
  it('a VM as provisioned does not drift', () => {
    const vm = vmDriftOf(VM, { plan: planFor() });
    expect(vm).toEqual({ ...VM, node: 'pve1', power: 'running', toProxmox: [], byHand: [], refused: [] });
    expect(vmDrifts(vm)).toBe(false);
  });

  it('a NetBox edit is a change NetBox → Proxmox, with both values and its class, without rule or operation', () => {
    const vm = vmDriftOf(VM, { plan: planFor({ memoryMB: 3072 }) });
    expect(vm.toProxmox).toEqual([
      { id: 'memory', kind: 'memory', from: '2048', to: '3072', class: 'at-restart', side: 'netbox' },
    ]);
    expect(vm.byHand).toEqual([]);
    expect(vmDrifts(vm)).toBe(true);
  });

  it('a hand change in Proxmox (told by the baseline) is listed by hand, with what waits in pending', () => {
    const plan = planFor({}, { pending: [{ key: 'memory', value: '4096' }] }, { baseline: BASELINE });
    const vm = vmDriftOf(VM, { plan });
    expect(vm.byHand).toEqual([
      { id: 'memory', kind: 'memory', from: '2048', to: '2048', pending: '4096', class: 'reported', side: 'proxmox' },
    ]);
    expect(vm.toProxmox).toEqual([]);
  });

  it('a refusal is kept apart with its reason (a shrink)', () => {
    const vm = vmDriftOf(VM, { plan: planFor({ diskMB: 10_240 }) });
    expect(vm.refused).toHaveLength(1);
    expect(vm.refused[0]).toMatchObject({ id: 'scsi0.size', class: 'refused', side: 'netbox' });
    expect(vm.refused[0]!.reason).toMatch(/shrink/);
    expect(vm.toProxmox).toEqual([]);
  });

  it('a record that cannot be planned drifts with its problems', () => {
    const vm = vmDriftOf(VM, { problems: ['vcpus: missing'] });
    expect(vm).toMatchObject({ problems: ['vcpus: missing'], toProxmox: [], byHand: [], refused: [] });
    expect(vmDrifts(vm)).toBe(true);
  });

  it('keeps only the VMs that drift, by NetBox id, and leaves out those beyond its budget, counted', () => {
    const drifting = (netboxId: number): VmDrift => ({
      ...VM,
      netboxId,
      toProxmox: [{ id: 'memory', kind: 'memory', from: '2048', to: '3072', class: 'live', side: 'netbox' }],
      byHand: [],
      refused: [],
    });
    const calm: VmDrift = { ...VM, netboxId: 1, toProxmox: [], byHand: [], refused: [] };
    const base = { cluster: 'c1', read: 4, unreadable: [] };
    const all = driftReportOf(base, [drifting(9), calm, drifting(3), drifting(5)]);
    expect(all.drifting.map((v) => v.netboxId)).toEqual([3, 5, 9]);
    expect(all).not.toHaveProperty('truncated');
    const one = JSON.stringify(drifting(3)).length;
    const small = driftReportOf(
      base,
      [drifting(9), calm, drifting(3), drifting(5)],
      JSON.stringify(base).length + 2 * one + 2,
    );
    expect(small.drifting.map((v) => v.netboxId)).toEqual([3, 5]);
    expect(small.truncated).toBe(1);
  });
});
