/**
 * How the report names and colours the stages and waits it draws. Stage names come from the
 * workflows' FerryStage search attribute; names this table does not know are drawn too, as `other`,
 * so a new stage never breaks a report.
 */
const STAGE_LABELS: Record<string, string> = {
  relocate: 'vMotion',
  'awaiting-approval': 'approval',
  'awaiting-decision': 'decision',
  start: 'boot',
};

/** The stages that say a workflow ended: a mark, not a span of time. */
const FINAL_STAGES = new Set(['done', 'refused', 'rejected', 'approval-expired', 'rolled-back', 'failed', 'cancelled']);

export const STAGE_COLOURS: Record<string, string> = {
  // migration
  validate: '#9aa5b1',
  networks: '#7b8794',
  shell: '#4c9be8',
  relocate: '#2f6fbd',
  inspect: '#5b8fb9',
  'awaiting-approval': '#f0b429',
  'awaiting-window': '#f7d070',
  shutdown: '#e66a3c',
  convert: '#c2410c',
  import: '#8e44ad',
  verify: '#27ab83',
  'verify-guest': '#3ebd93',
  start: '#147d64',
  'awaiting-decision': '#d64545',
  rollback: '#a61b1b',
  // provisioning
  resolve: '#9aa5b1',
  vmid: '#7b8794',
  check: '#9aa5b1',
  preflight: '#7b8794',
  create: '#4c9be8',
  hardware: '#2f6fbd',
  netbox: '#8e44ad',
  address: '#a368c9',
  dns: '#27ab83',
  handover: '#f0b429',
  // waits
  permit: '#52606d',
  queue: '#e12d39',
  timer: '#d3dce6',
  other: '#cbd2d9',
};

export function stageLabel(stage: string): string {
  return STAGE_LABELS[stage] ?? stage;
}

export function isFinalStage(stage: string): boolean {
  return FINAL_STAGES.has(stage);
}

/** The colour key of a stage: itself when known, else `other`. */
export function stageCategory(stage: string): string {
  return stage in STAGE_COLOURS ? stage : 'other';
}

export function colourOf(category: string): string {
  return STAGE_COLOURS[category] ?? STAGE_COLOURS.other!;
}
