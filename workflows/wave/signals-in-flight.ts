import { allHandlersFinished, condition } from '@temporalio/workflow';

/**
 * Signals to the VMs' workflows still on their way. A run must not end (or continue as new) before they
 * are delivered, or a VM would never hear its approval.
 */
export class SignalsInFlight {
  private readonly pending = new Set<Promise<unknown>>();

  /** Tracks a signal being sent; one that fails is dropped (the VM's workflow is gone). */
  send(signal: Promise<unknown>): void {
    const tracked = signal.catch(() => undefined).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Every handler has finished and every signal is delivered: the run may end or continue as new. */
  async settled(): Promise<void> {
    await condition(allHandlersFinished);
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
