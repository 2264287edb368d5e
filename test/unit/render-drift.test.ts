import type { DriftReport, VmDrift } from '../../src/domain/change';
import { driftExitCode, driftSummary, renderDriftReport } from '../../cli/render-drift';

const edited: VmDrift = {
  netboxId: 7,
  name: 'web1',
  vmid: 9001,
  node: 'pve1',
  power: 'running',
  toProxmox: [{ id: 'memory', kind: 'memory', from: '2048', to: '3072', class: 'live', side: 'netbox' }],
  byHand: [],
  refused: [],
};
const handMade: VmDrift = {
  netboxId: 8,
  name: 'web2',
  vmid: 9002,
  node: 'pve2',
  power: 'running',
  toProxmox: [],
  byHand: [
    { id: 'vcpus', kind: 'vcpus', from: '2', to: '2', pending: '4', class: 'reported', side: 'proxmox' },
    { id: 'net0.link_down', kind: 'nic.link_down', from: '1', class: 'reported', side: 'both' },
  ],
  refused: [
    {
      id: 'scsi0.size',
      kind: 'disk.size',
      from: String(8 * 1024 ** 3),
      to: String(4 * 1024 ** 3),
      class: 'refused',
      side: 'netbox',
      reason: 'shrinking disks is not supported',
    },
  ],
};
const report = (over: Partial<DriftReport> = {}): DriftReport => ({
  cluster: 'pve-lab',
  read: 3,
  drifting: [],
  unreadable: [],
  ...over,
});

describe('ferry drift: how a report reads', () => {
  it('nothing drifts: only the summary, exit 0', () => {
    expect(renderDriftReport(report())).toEqual(['3 VM(s) read, 0 drift, 0 unreadable (cluster pve-lab)']);
    expect(driftExitCode(report())).toBe(0);
  });

  it('one block per drifting VM, by direction, with pending values and refusals; exit 1', () => {
    const r = report({ tag: 'web', drifting: [edited, handMade] });
    expect(renderDriftReport(r)).toEqual([
      'web1 (NetBox VM 7, VM 9001 on pve1, running):',
      '  NetBox → Proxmox (edited in NetBox, not in Proxmox yet):',
      '    memory: 2048 MiB → 3072 MiB [live]',
      'web2 (NetBox VM 8, VM 9002 on pve2, running):',
      '  changed by hand in Proxmox:',
      '    vcpus: Proxmox 2 (pending: 4), NetBox 2 [reported]',
      '    net0.link_down: Proxmox down, NetBox up [reported, NetBox changed too]',
      '  refused (ferry would not change these):',
      '    scsi0.size: Proxmox 8G, NetBox 4G: shrinking disks is not supported',
      '3 VM(s) read, 2 drift, 0 unreadable (cluster pve-lab, tag web)',
    ]);
    expect(driftExitCode(r)).toBe(1);
  });

  it('a record that cannot be planned and an unreadable VM are shown with their reasons; exit 1', () => {
    const r = report({
      read: 1,
      drifting: [{ ...edited, node: undefined, power: undefined, toProxmox: [], problems: ['vcpus: missing'] }],
      unreadable: [{ netboxId: 9, name: 'db1', vmid: 9003, reason: 'Proxmox has no VM 9003' }],
    });
    expect(renderDriftReport(r)).toEqual([
      'web1 (NetBox VM 7, VM 9001):',
      '  cannot be planned (the record does not translate into a VM):',
      '    vcpus: missing',
      'could not be read:',
      '  db1 (NetBox VM 9, VM 9003): Proxmox has no VM 9003',
      '1 VM(s) read, 1 drift, 1 unreadable (cluster pve-lab)',
    ]);
    expect(driftExitCode(report({ unreadable: r.unreadable }))).toBe(1);
  });

  it('VMs left out of a large report still count in the summary', () => {
    const r = report({ read: 1000, drifting: [edited], truncated: 41 });
    expect(driftSummary(r)).toBe('1000 VM(s) read, 42 drift, 0 unreadable (cluster pve-lab)');
    expect(renderDriftReport(r)).toContain(
      '… and 41 more VM(s) that drift, left out to keep the report small (ferry plan --change)',
    );
  });
});
