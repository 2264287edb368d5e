/** A wait on a condition (not a fixed pause): what for, and how long it took. Workflows record these. */
export interface WaitRecord {
  for: string;
  waitedMs: number;
}
