import { describeCleanup, describeStep, type ProvisionStatus, type TeardownStatus } from '../src/domain/provisioning';

/**
 * The lines `ferry status` adds for a provision (the VM, every step with its outcome) or a teardown
 * (the approval it waits for, what happened to the VM, every cleanup with its outcome and error).
 */
export function renderLifecycle(s: Record<string, unknown>): string[] {
  if (s.kind === 'provision') return renderProvision(s as unknown as ProvisionStatus);
  if (s.kind === 'teardown') return renderTeardown(s as unknown as TeardownStatus);
  return [];
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
  const lines = [`  VM ${s.vmid}${s.name ? ` ${s.name}` : ''}${s.netboxId !== undefined ? `, NetBox VM ${s.netboxId}` : ''}${s.resumed ? ' (finishing an earlier incomplete run)' : ''}`];
  if (s.approvalRequired) lines.push(`  approval needed: ${s.approvalRequired}`);
  if (s.rejection) lines.push(`  rejected by ${s.rejection.by}: ${s.rejection.reason}`);
  for (const ignored of s.ignored) lines.push(`  ignored: ${ignored.message}: ${ignored.reason}`);
  if (s.steps.length) lines.push('  VM:', ...s.steps.map((step) => `    ${step.step.padEnd(9)} ${step.outcome}${step.detail ? ` (${step.detail})` : ''}`));
  if (s.cleanups.length) lines.push('  cleanups:', ...s.cleanups.map((c) => `    ${describeCleanup(c)}`));
  return lines;
}
