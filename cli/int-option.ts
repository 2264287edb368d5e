import { InvalidArgumentError } from 'commander';

/**
 * A commander argParser for whole-number options, so `--limit ten` or `--port 0` is a usage error
 * naming the option rather than a NaN that surfaces later.
 */
export function intOption(min: number, max: number = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value: string) => {
    const text = value.trim();
    const n = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`expected a whole number ${range}, got "${value}".`);
    }
    return n;
  };
}
