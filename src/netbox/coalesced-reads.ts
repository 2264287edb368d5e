/**
 * Reads of many callers as one: a read asked while another is on its way waits for it to return and
 * then goes out with every read asked meanwhile, as one batch. A lone read leaves at once (no timer, no
 * added latency); 200 day-2 runs that start together cost a handful of NetBox list requests instead of
 * 200 × 4 (the drift report's "in pages, not per VM", for runs that each read one VM).
 *
 * A batch that fails rejects each of its callers with that error (each retries on its own); a key the
 * batch did not return rejects its caller with `missing(key)`.
 */
export class CoalescedReads<K, V> {
  private readonly waiting = new Map<K, Array<{ resolve: (v: V) => void; reject: (e: unknown) => void }>>();
  private sending = false;

  constructor(
    private readonly readBatch: (keys: K[]) => Promise<Map<K, V>>,
    private readonly missing: (key: K) => Error,
    /** The most keys in one batch (a query string stays short). */
    private readonly maxBatch = 100,
  ) {}

  read(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      const callers = this.waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (!this.sending) void this.send();
    });
  }

  private async send(): Promise<void> {
    this.sending = true;
    try {
      while (this.waiting.size > 0) {
        const keys = [...this.waiting.keys()].slice(0, this.maxBatch);
        const callers = keys.map((k) => [k, this.waiting.get(k)!] as const);
        for (const k of keys) this.waiting.delete(k);
        try {
          const found = await this.readBatch(keys);
          for (const [k, cs] of callers) {
            const value = found.get(k);
            for (const c of cs)
              if (value === undefined) c.reject(this.missing(k));
              else c.resolve(value);
          }
        } catch (err) {
          for (const [, cs] of callers) for (const c of cs) c.reject(err);
        }
      }
    } finally {
      this.sending = false;
    }
  }
}
