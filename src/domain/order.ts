/**
 * Orders strings by UTF-16 code units, like `Array.prototype.sort()` without a comparator. Unlike
 * `localeCompare` it does not depend on the process's locale or ICU data, so a workflow that sorts
 * on one worker replays the same way on another.
 */
export function compareCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
