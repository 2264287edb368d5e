/** The p-th percentile (0–100) of `values` by nearest rank; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const ms = (x: number): string => (Number.isNaN(x) ? 'n/a' : `${Math.round(x)} ms`);
