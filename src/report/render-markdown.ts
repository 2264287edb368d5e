import { formatCopied, formatDuration, formatTime } from './format';
import type { ReportModel } from './model';

/** A table cell: pipes and line breaks would end it. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function table(headers: string[], rows: string[][]): string[] {
  return [
    `| ${headers.join(' | ')} |`,
    `|${headers.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
}

/** The report as Markdown: totals, one line per VM, refusals, approvals, failures and decisions. */
export function renderMarkdown(model: ReportModel): string {
  const t = model.totals;
  const title = model.kind === 'migration-wave' ? 'Migration wave' : 'Provision batch';
  const lines = [
    `# ${title} ${model.id} (${model.state})`,
    '',
    `${model.workflowId}: ${formatTime(model.startedAt)} → ${model.endedAt !== undefined ? formatTime(model.endedAt) : 'still running'} (${formatDuration(t.durationMs)})`,
    '',
    `- VM workflows: ${t.vms} (${
      Object.entries(t.outcomes)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ') || 'none'
    })`,
    `- refused: ${t.refused}; approvals: ${t.approvals}; ignored messages: ${t.ignored}; failures: ${t.failures}`,
    ...(t.downtime.count
      ? [
          `- downtime: median ${formatDuration(t.downtime.medianMs)}, max ${formatDuration(t.downtime.maxMs)}, total ${formatDuration(t.downtime.totalMs)} over ${t.downtime.count} VMs`,
        ]
      : []),
    ...(t.bytesImported || t.bytesMovedLive
      ? [`- disks copied: ${formatCopied(t.bytesImported, t.bytesMovedLive)}`]
      : []),
    '',
    '## VMs',
    '',
    ...table(
      ['VM', 'VMID', 'outcome', 'stages', 'downtime', 'disks copied'],
      model.vms.map((vm) => [
        vm.name,
        vm.vmid !== undefined ? String(vm.vmid) : '–',
        vm.outcome ?? vm.state,
        vm.bars
          .filter((b) => b.lane === 'stage')
          .map((b) => `${b.label} ${formatDuration(b.end - b.start)}`)
          .join(' → '),
        vm.downtimeMs !== undefined ? `${formatDuration(vm.downtimeMs)}${vm.downtimeOpen ? '+' : ''}` : '–',
        formatCopied(vm.importedBytes, vm.movedLiveBytes),
      ]),
    ),
  ];
  if (model.refusals.length)
    lines.push('', '## Refusals', '', ...model.refusals.map((r) => `- **${r.vm}**: ${r.reasons.join('; ')}`));
  if (model.approvals.length) {
    lines.push(
      '',
      '## Approvals',
      '',
      ...model.approvals.map(
        (a) =>
          `- ${a.decision} by **${a.by}**${a.at !== undefined ? ` at ${formatTime(a.at)}` : ''}${a.via ? ` (${a.via}${a.signed === false ? ', unsigned' : a.signed ? ', signed' : ''})` : ''}: ${a.reason} — ${a.vms === 'all' ? 'all VMs' : a.vms.join(', ')}`,
      ),
    );
  }
  if (model.ignored.length)
    lines.push(
      '',
      '## Ignored messages',
      '',
      ...model.ignored.map((i) => `- ${i.vm ? `**${i.vm}**` : 'the wave'}: ${i.message}: ${i.reason}`),
    );
  if (model.failures.length) {
    lines.push('', '## Failures and decisions', '');
    for (const f of model.failures) {
      lines.push(`- **${f.vm}** ${formatTime(f.at)}: ${f.what}: ${f.message}`);
      for (const d of f.decisions) lines.push(`  - ${d.decision} by ${d.by}${d.via ? ` (${d.via})` : ''}: ${d.reason}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
