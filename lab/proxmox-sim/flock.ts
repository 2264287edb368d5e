/**
 * The per-VM config file lock (PVE's flock on /var/lock/qemu-server/lock-<vmid>.conf): writers queue for
 * it and give up after a timeout with PVE's message.
 */
export class FileLock {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  constructor(private readonly file: string) {}

  get held(): boolean {
    return this.holders > 0;
  }

  async run<T>(timeoutMs: number, fn: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const previous = this.tail;
    this.tail = previous.then(() => mine);
    let timer: NodeJS.Timeout | undefined;
    const acquired = await Promise.race([
      previous.then(() => true),
      new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (!acquired) {
      // Leave the queue: our turn passes straight on once the holders before us are done.
      void previous.then(release);
      throw new Error(`can't lock file '${this.file}' - got timeout`);
    }
    this.holders++;
    try {
      return await fn();
    } finally {
      this.holders--;
      release();
    }
  }
}
