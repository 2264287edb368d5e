/**
 * Polls `probe` (in real time) until it gives a value; errors from the probe count as "not yet" (a
 * workflow that has not run its first task cannot answer a query). Fails with `what` after the timeout.
 */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 120_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
