import { describeConversion, type ConversionPlan } from './decision';
import type { ConversionResult } from './result';

/** A conversion's record as `ferry status` prints it: what was planned or done, its steps' times, virt-v2v's warnings. */
export function describeConversionRecord(record: { plan: ConversionPlan; result?: ConversionResult }): string[] {
  const { result } = record;
  const lines = describeConversion(result?.plan ?? record.plan);
  if (result?.converted) {
    const steps = result.steps.map((s) => `${s.step} ${s.seconds.toFixed(1)} s`).join(', ');
    lines[0] = `${lines[0]} in ${result.seconds.toFixed(1)} s under ${result.accel.toUpperCase()}${result.alreadyConverted ? ' (by an earlier attempt)' : ''}: ${steps}`;
    for (const w of result.log.warnings) lines.push(`  virt-v2v warning: ${w}`);
    for (const i of result.log.infos) lines.push(`  virt-v2v: ${i}`);
  } else if (!record.result && record.plan.convert) {
    lines[0] = `planned: ${lines[0]}`;
  }
  return lines;
}
