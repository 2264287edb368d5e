import {
  approveCommand,
  changeWaitLine,
  renderChangePlan,
  renderChangeStatus,
  renderOutcomes,
} from '../../cli/render-change';
import { newChangeStatus, type ChangeStatus } from '../../src/domain/change-vm';
import type { RecordDisk } from '../../src/domain/provisioning';
import { configWith, planFor } from './domain/change/fixtures';

const hot = { hotplug: 'network,disk,memory', numa: '1' };
const scsi0: RecordDisk = { id: 1, name: 'scsi0', sizeMB: 20_480, fields: {} };

describe('the change plan as ferry plan --change prints it', () => {
  it('lists each change with from → to, class, why and rule, then the steps and the refusals with reasons', () => {
    const plan = planFor(
      { memoryMB: 4096, vcpus: 4, disks: [{ ...scsi0, sizeMB: 10_240 }] },
      { config: configWith(hot) },
    );
    const text = renderChangePlan({ netboxId: 42, name: 'web1', vmid: 9001, plan }).join('\n');
    expect(text).toContain('NetBox VM web1 (id 42) → Proxmox VM 9001 on pve1 (running)');
    expect(text).toMatch(
      /changes:\n {2}vcpus: 2 → 4 \[at-restart, NetBox\] .+\n {6}rule: .+\n {2}memory: 2048 MiB → 4096 MiB \[live, NetBox\]/,
    );
    expect(text).toMatch(
      /refused \(nothing written for these\):\n {2}scsi0\.size: 20G → 10G \[refused, NetBox\] .*shrink/i,
    );
    expect(text).toContain('rule: PVE/API2/Qemu.pm resize_vm');
    expect(text).toMatch(
      /steps \(2 Proxmox request\(s\) beyond the reads\):\n {2}live: {4}one config write now: memory\n {2}restart: .+: vcpus/,
    );
  });

  it('says "no changes" when the two sides agree, and why a record cannot be planned', () => {
    expect(renderChangePlan({ netboxId: 42, name: 'web1', vmid: 9001, plan: planFor() })).toEqual([
      'NetBox VM web1 (id 42) → Proxmox VM 9001 on pve1 (running)',
      '  no changes: NetBox and Proxmox agree on every field ferry manages',
    ]);
    expect(renderChangePlan({ netboxId: 7, name: 'db', vmid: 9002, problems: ['ferry_node: no such node'] })).toEqual([
      'NetBox VM db (id 7) → Proxmox VM 9002: cannot be planned (the record does not translate into a VM):',
      '  ferry_node: no such node',
    ]);
  });
});

describe('a changeVm run as ferry status and ferry apply --wait print it', () => {
  const status = (edits: Partial<ChangeStatus>): ChangeStatus => ({
    ...newChangeStatus({ netboxId: 42, vmid: 9001, trigger: { source: 'ferry-apply', at: '2026-01-02T03:04:05Z' } }),
    ...edits,
  });
  const plan = planFor({ memoryMB: 4096, vcpus: 4 }, { config: configWith(hot) });

  it('names what a run at the gate waits for and the command that decides it', () => {
    const waiting = status({
      stage: 'awaiting-approval',
      name: 'web1',
      node: 'pve1',
      plan,
      waiting: { for: 'an approval', since: 0 },
      outcomes: [
        { id: 'vcpus', outcome: 'held', detail: 'not sent: waits for an approval or a maintenance window' },
        { id: 'memory', outcome: 'applied-live', detail: 'Proxmox has it, nothing pending' },
      ],
    });
    const lines = renderChangeStatus(waiting);
    expect(lines[0]).toBe('  VM 9001, web1, on pve1, NetBox VM 42');
    expect(lines).toContain(`  waits for an approval of the changes that wait for a restart: ${approveCommand(9001)}`);
    expect(approveCommand(9001)).toMatch(/^ferry approve change-9001 --by NAME --reason TEXT \[--restart\]/);
    const text = lines.join('\n');
    expect(text).toMatch(/vcpus: 2 → 4 .+\n {6}→ held: not sent/);
    expect(text).toMatch(/memory: 2048 MiB → 4096 MiB .+\n {6}→ applied-live: Proxmox has it/);
  });

  it('shows another wait as the run states it, none when it works, and the decision once taken', () => {
    expect(changeWaitLine(status({ stage: 'debounce', waiting: { for: 'NetBox edits to stop', since: 0 } }))).toBe(
      'waits for NetBox edits to stop',
    );
    expect(changeWaitLine(status({ stage: 'apply' }))).toBeUndefined();
    const done = renderChangeStatus(
      status({
        stage: 'done',
        plan,
        approval: { by: 'alice', reason: 'window', at: 0, via: 'update', restart: true },
        restarted: true,
      }),
    );
    expect(done).toContain('  approved by alice (ferry restarts the VM): window');
    expect(done).toContain('  ferry restarted the VM (asked by the approval)');
    expect(done.join('\n')).toMatch(/memory: .+\n {6}→ not applied yet/);
    expect(renderOutcomes({ plan: planFor(), outcomes: [] })).toEqual(['  no changes: NetBox and Proxmox agree']);
    expect(renderOutcomes({ outcomes: [] })).toEqual([]);
  });
});
