import { Worker as NodeWorker } from 'node:worker_threads';
import type { CompiledWorkerOptions } from '@temporalio/worker';
import type { Logger } from '@temporalio/common';
import { UnexpectedError } from '@temporalio/worker/lib/errors';
import type { WorkflowCreator } from '@temporalio/worker/lib/workflow/interface';
import { ThreadedVMWorkflowCreator, WorkerThreadClient } from '@temporalio/worker/lib/workflow/threaded-vm';
import type {
  WorkflowBundleWithSourceMapAndFilename,
  WorkerThreadInput,
} from '@temporalio/worker/lib/workflow/workflow-worker-thread/input';
import type { WorkerThreadOutput } from '@temporalio/worker/lib/workflow/workflow-worker-thread/output';

/**
 * The SDK's workflow thread, started by ferry: without the SDK's watchdog on every call into the
 * workflow sandbox, watched from the main thread instead; and, with `promiseStacks: false`, without
 * the SDK's promise hook.
 *
 * **The watchdog.** The SDK passes `isolateExecutionTimeout` to every `vm` call into the sandbox
 * (three to five per activation), and Node starts and joins a thread for each such call
 * (nodejs/node#47739): ~90 µs of CPU a call, a quarter of a migrateVm replay's CPU (137 → 103 ms,
 * bench/workflow-replay.ts). And when it fires inside a microtask, where workflow code runs, it
 * crashes Node ("async hook stack has become corrupted", nodejs/node#38503) instead of failing the
 * task. So the thread runs without it, and the main thread checks once a second whether the workflow
 * thread has held an activation for `isolateExecutionTimeout` without finishing any: a workflow that
 * never yields would otherwise hang every workflow of the process. Then it logs which workflow it is,
 * stops the thread, and the Workers fail with that reason (the SDK shuts a Worker down when its
 * workflow thread is gone), so the process ends and its tasks go to other workers.
 *
 * **The promise hook.** For every promise a workflow creates, the SDK's hook builds an Error, formats
 * its stack through the bundle's source map and keeps it while the promise is pending: that is what
 * the `__stack_trace` query (the Temporal UI's "Stack Trace" tab) answers from. It costs ~20 % of the
 * workflow thread's CPU (bench/workflow-replay.ts). Nothing else reads those stacks: unhandled
 * rejections find their run through the promise's realm; the query then answers "Workflow stack traces
 * are not enabled on this worker". The SDK has no option for it, so the thread's entry disables the
 * hook before the SDK's own entry module runs.
 */
export async function startWorkflowThread(
  bundle: WorkflowBundleWithSourceMapAndFilename,
  options: CompiledWorkerOptions,
  logger: Logger,
  { promiseStacks }: { promiseStacks: boolean },
): Promise<WorkflowCreator> {
  const entry = [
    ...(promiseStacks
      ? []
      : [
          `require(${JSON.stringify(require.resolve('@temporalio/worker/lib/workflow/vm-shared'))}).globalHandlers.setPromiseHook = () => {};`,
        ]),
    `require(${JSON.stringify(require.resolve('@temporalio/worker/lib/workflow/workflow-worker-thread'))});`,
  ].join('\n');
  const threads = Array.from(
    { length: options.workflowThreadPoolSize },
    () =>
      new WatchedThreadClient(
        new NodeWorker(entry, { eval: true }),
        logger,
        options.isolateExecutionTimeoutMs,
        options.patchActivationCallback,
      ),
  );
  await Promise.all(
    threads.map((thread) =>
      thread.send({
        type: 'init',
        workflowBundle: bundle,
        // No limit: the vm module then runs the sandbox without a watchdog thread (see above).
        isolateExecutionTimeoutMs: undefined as unknown as number,
        reuseV8Context: options.reuseV8Context ?? true,
        registeredActivityNames: new Set(options.activities.keys()),
        hasPatchActivationCallback: options.patchActivationCallback !== undefined,
      }),
    ),
  );
  return new ThreadedVMWorkflowCreator(threads);
}

/** What the main thread knows of the activation the workflow thread is on. */
export interface StuckActivation {
  runId: string;
  /** "<workflowType> <workflowId>", when the thread created that workflow. */
  workflow?: string;
  heldMs: number;
}

/**
 * Which activation a workflow thread is stuck on: the one it has held for `limitMs` or more while
 * finishing none. The thread takes activations in the order they were sent, so the oldest one in hand
 * is the one it is running; one that waits behind others is not stuck, which is why the clock restarts
 * whenever any activation finishes.
 */
export class ActivationsInHand {
  private readonly inHand = new Map<number, string>();
  private readonly workflows = new Map<string, string>();
  private serial = 0;
  private lastFinished = 0;

  created(runId: string, workflow: string): void {
    this.workflows.set(runId, workflow);
  }

  disposed(runId: string): void {
    this.workflows.delete(runId);
  }

  /** Records an activation sent to the thread; call the returned function when it is answered. */
  sent(runId: string, now: number): (answeredAt?: number) => void {
    const id = this.serial++;
    if (this.inHand.size === 0) this.lastFinished = now;
    this.inHand.set(id, runId);
    return (answeredAt = Date.now()) => {
      this.inHand.delete(id);
      this.lastFinished = answeredAt;
    };
  }

  stuck(now: number, limitMs: number): StuckActivation | undefined {
    const heldMs = now - this.lastFinished;
    if (this.inHand.size === 0 || heldMs < limitMs) return undefined;
    const runId = this.inHand.values().next().value as string;
    return { runId, workflow: this.workflows.get(runId), heldMs };
  }
}

/** A workflow thread's client that watches the thread from the main thread (see startWorkflowThread). */
class WatchedThreadClient extends WorkerThreadClient {
  private readonly activations = new ActivationsInHand();
  private readonly watch: NodeJS.Timeout;

  constructor(
    thread: NodeWorker,
    private readonly log: Logger,
    private readonly limitMs: number,
    patchActivationCallback: CompiledWorkerOptions['patchActivationCallback'],
  ) {
    super(thread, log, patchActivationCallback);
    this.watch = setInterval(() => this.check(), Math.min(1_000, Math.max(50, limitMs / 4))).unref();
    thread.once('exit', () => clearInterval(this.watch));
  }

  override send(input: WorkerThreadInput): Promise<WorkerThreadOutput> {
    switch (input.type) {
      case 'create-workflow':
        this.activations.created(
          input.options.info.runId,
          `${input.options.info.workflowType} ${input.options.info.workflowId}`,
        );
        break;
      case 'dispose-workflow':
        this.activations.disposed(input.runId);
        break;
      case 'activate-workflow': {
        const answered = this.activations.sent(input.runId, Date.now());
        return super.send(input).finally(() => answered());
      }
    }
    return super.send(input);
  }

  private check(): void {
    const stuck = this.activations.stuck(Date.now(), this.limitMs);
    if (!stuck) return;
    clearInterval(this.watch);
    const what = stuck.workflow ? `workflow ${stuck.workflow} (run ${stuck.runId})` : `workflow run ${stuck.runId}`;
    const reason = new UnexpectedError(
      `the workflow thread was stopped: ${what} ran for ${(stuck.heldMs / 1000).toFixed(1)} s without yielding ` +
        `(worker.isolateExecutionTimeout ${this.limitMs / 1000} s); every workflow of this worker waited behind it`,
    );
    this.log.error(reason.message, { runId: stuck.runId });
    // The SDK's client rejects what the thread still owed with exitError once the thread has exited.
    (this as unknown as { exitError?: Error }).exitError = reason;
    void this.workerThread.terminate();
  }
}
