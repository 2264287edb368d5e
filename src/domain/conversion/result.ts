import type { ConversionPlan } from './decision';

export interface ConversionStepTime {
  step: 'overlays' | 'inspect-and-edit' | 'virt-v2v';
  seconds: number;
  summary: string;
}

/** What a conversion did (the convertGuest activity's answer; recorded in the workflow's status). */
export interface ConversionResult {
  /** false: the fresh inspection found nothing to convert (the overlays were dropped again). */
  converted: boolean;
  /** An earlier attempt had finished this very conversion: its result, nothing redone. */
  alreadyConverted: boolean;
  /** The plan decided on the guest as it is at cutover (shut down). */
  plan: ConversionPlan;
  /** The overlays the disks now come from, by slot (empty when not converted). */
  overlays: Array<{ slot: string; volume: string }>;
  steps: ConversionStepTime[];
  seconds: number;
  accel: 'kvm' | 'tcg';
  /** virt-v2v's warnings and notes, and the timed steps it printed. */
  log: { warnings: string[]; infos: string[]; steps: string[] };
}
