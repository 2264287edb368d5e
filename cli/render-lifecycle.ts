import type { ChangeStatus } from '../src/domain/change-vm';
import { describeConversionRecord } from '../src/domain/conversion';
import { renderChangeStatus } from './render-change';
import { describeVerification, type GuestVerification, type MigrationStatus } from '../src/domain/migration';
import { describeStep, type ProvisionStatus } from '../src/domain/provisioning/status';
import { describeCleanup, type TeardownStatus } from '../src/domain/provisioning/teardown';

/**
 * The lines `ferry status` adds for a provision (the VM, every step with its outcome), a day-2 change
 * (each change with its outcome, what it waits for) or a teardown
 * (the approval it waits for, what happened to the VM, every cleanup with its outcome and error).
 */
export function renderLifecycle(s: Record<string, unknown>): string[] {
  if (s.kind === 'provision') return renderProvision(s as unknown as ProvisionStatus);
  if (s.kind === 'teardown') return renderTeardown(s as unknown as TeardownStatus);
  if (s.kind === 'change') return renderChangeStatus(s as unknown as ChangeStatus);
  if (typeof s.moid === 'string' && Array.isArray(s.imports)) return renderMigration(s as unknown as MigrationStatus);
  return [];
}

/** A migration's guest conversion, its verification (verdict, boot-to-agent, downtime, every check) and the VMware power state it restores. */
function renderMigration(s: MigrationStatus): string[] {
  const lines: string[] = [];
  if (s.vmwarePowerState) lines.push(`  VMware power state before the shutdown: ${s.vmwarePowerState}`);
  if (s.conversion)
    lines.push(...describeConversionRecord(s.conversion).map((l, i) => (i === 0 ? `  conversion: ${l}` : `  ${l}`)));
  if (s.overlays) {
    const removed = s.overlays.removed?.length ? `removed ${s.overlays.removed.join(', ')}` : 'in place';
    lines.push(`  overlays on ${s.overlays.storage}: ${removed}`);
    if (s.overlays.cleanupWarning) lines.push(`    WARNING: ${s.overlays.cleanupWarning}`);
  }
  for (const m of s.moves ?? []) {
    const done = m.volume
      ? `moved to ${m.volume}${m.seconds !== undefined ? ` in ${m.seconds.toFixed(1)} s` : ''}`
      : `from ${m.from}, not moved yet`;
    lines.push(
      `  move ${m.slot}: ${done}${m.attempts > 1 ? ` (${m.attempts} attempts; the VM ran on its overlay meanwhile)` : ''}`,
    );
  }
  if (s.verification) lines.push(...renderVerification(s.verification));
  return lines;
}

export function renderVerification(v: GuestVerification): string[] {
  const lines = [`  guest: ${describeVerification(v)}`];
  if (v.expectedAddress) lines.push(`    expected address ${v.expectedAddress.address} (${v.expectedAddress.source})`);
  for (const c of v.checks)
    lines.push(
      `    ${new Date(c.at).toISOString().slice(11, 19)} ${c.check.padEnd(12)} ${c.result.padEnd(7)} ${c.detail}`,
    );
  if (v.state === 'failed' && v.interfaces) {
    lines.push('    interfaces in the guest:');
    for (const i of v.interfaces)
      lines.push(`      ${i.name} ${i.mac ?? '(no MAC)'} ${i.addresses.join(' ') || '(no address)'}`);
  }
  return lines;
}

function renderProvision(s: ProvisionStatus): string[] {
  const vm = [
    s.vmid !== undefined ? `VM ${s.vmid}` : 'VM (no VMID yet)',
    s.name,
    s.node ? `on ${s.node}` : undefined,
    s.netboxId !== undefined ? `NetBox VM ${s.netboxId}` : undefined,
    s.address,
    s.fqdn,
  ].filter(Boolean);
  const lines = [`  ${vm.join(', ')}`];
  if (s.steps.length) lines.push('  steps:', ...s.steps.map((step) => `    ${describeStep(step)}`));
  return lines;
}

function renderTeardown(s: TeardownStatus): string[] {
  const lines = [
    `  VM ${s.vmid}${s.name ? ` ${s.name}` : ''}${s.netboxId !== undefined ? `, NetBox VM ${s.netboxId}` : ''}${s.resumed ? ' (finishing an earlier incomplete run)' : ''}`,
  ];
  if (s.approvalRequired) lines.push(`  approval needed: ${s.approvalRequired}`);
  if (s.rejection) lines.push(`  rejected by ${s.rejection.by}: ${s.rejection.reason}`);
  for (const ignored of s.ignored) lines.push(`  ignored: ${ignored.message}: ${ignored.reason}`);
  if (s.steps.length)
    lines.push(
      '  VM:',
      ...s.steps.map((step) => `    ${step.step.padEnd(9)} ${step.outcome}${step.detail ? ` (${step.detail})` : ''}`),
    );
  if (s.cleanups.length) lines.push('  cleanups:', ...s.cleanups.map((c) => `    ${describeCleanup(c)}`));
  return lines;
}
