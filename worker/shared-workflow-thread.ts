import { Worker as NodeWorker } from 'node:worker_threads';
import { Worker, type CompiledWorkerOptions } from '@temporalio/worker';
import type { Logger } from '@temporalio/common';
import type { WorkflowCreator } from '@temporalio/worker/lib/workflow/interface';
import { ThreadedVMWorkflowCreator, WorkerThreadClient } from '@temporalio/worker/lib/workflow/threaded-vm';
import type { WorkflowBundleWithSourceMapAndFilename } from '@temporalio/worker/lib/workflow/workflow-worker-thread/input';

/**
 * A Worker class whose instances run their workflows in one workflow thread, instead of one each.
 *
 * The SDK gives every Worker its own workflow thread: its own V8 isolate, the workflow bundle compiled
 * into it and the bundle's source map parsed for stack traces. The coordination Worker's thread cost
 * ~80 MiB of RSS idle (276 against 195 MiB) for the handful of waves, semaphores and allocators it runs.
 * Task slots and caches stay per Worker (the Rust core keeps them), so the coordination queue's tasks
 * still never wait for a VM task's slot; in the thread, activations run in arrival order, as they did
 * before the coordination Worker existed.
 *
 * The thread is started by the first Worker created, with that Worker's bundle and isolate options
 * (createWorkers passes every Worker the same), and ends with the last one to shut down. A Worker with
 * another bundle file is refused rather than silently given the first one's code.
 *
 * `stackTraces: false` starts the thread without the SDK's promise hook (see threadWithoutPromiseStacks).
 */
export function workerClassSharingOneWorkflowThread({ stackTraces = true }: { stackTraces?: boolean } = {}): typeof Worker {
  let thread: Promise<WorkflowCreator> | undefined;
  let threadBundle = '';
  let users = 0;
  return class WorkerOnSharedThread extends Worker {
    protected static override async createWorkflowCreator(
      bundle: WorkflowBundleWithSourceMapAndFilename,
      options: CompiledWorkerOptions,
      logger: Logger,
    ): Promise<WorkflowCreator> {
      if (!thread) {
        threadBundle = bundle.filename;
        thread = stackTraces || options.debugMode ? super.createWorkflowCreator(bundle, options, logger) : threadWithoutPromiseStacks(bundle, options, logger);
      } else if (bundle.filename !== threadBundle) {
        throw new Error(`a shared workflow thread runs one bundle (${threadBundle}), not also ${bundle.filename}`);
      }
      const creator = await thread;
      users++;
      let destroyed = false;
      const shared: SharedWorkflowCreator = {
        thread: creator,
        createWorkflow: (workflowOptions) => creator.createWorkflow(workflowOptions),
        destroy: async () => {
          if (destroyed) return;
          destroyed = true;
          if (--users === 0) {
            thread = undefined;
            await creator.destroy();
          }
        },
      };
      return shared;
    }
  };
}

/** What each Worker of the class holds: its handle on the shared thread (`thread`, the same for all). */
export interface SharedWorkflowCreator extends WorkflowCreator {
  readonly thread: WorkflowCreator;
}

/**
 * The SDK's workflow thread, started with its promise hook switched off.
 *
 * For every promise a workflow creates, the SDK's hook builds an Error, formats its stack through the
 * bundle's source map and keeps it while the promise is pending: that is what the `__stack_trace`
 * query (the Temporal UI's "Stack Trace" tab) answers from. It costs ~40 % of the workflow code's CPU
 * (bench/workflow-replay.ts: 88 → 52 ms per migrateVm replay), though not measurably the whole
 * worker's (docs/benchmarks.md). Nothing else reads those stacks: unhandled rejections
 * find their run through the promise's realm; the query then answers "Workflow stack traces are not
 * enabled on this worker". The SDK has no option for it, so the thread's entry disables the hook before
 * the SDK's own entry module runs; the rest is ThreadedVMWorkflowCreator.create.
 */
async function threadWithoutPromiseStacks(bundle: WorkflowBundleWithSourceMapAndFilename, options: CompiledWorkerOptions, logger: Logger): Promise<WorkflowCreator> {
  const entry = [
    `require(${JSON.stringify(require.resolve('@temporalio/worker/lib/workflow/vm-shared'))}).globalHandlers.setPromiseHook = () => {};`,
    `require(${JSON.stringify(require.resolve('@temporalio/worker/lib/workflow/workflow-worker-thread'))});`,
  ].join('\n');
  const threads = Array.from({ length: options.workflowThreadPoolSize }, () => new WorkerThreadClient(new NodeWorker(entry, { eval: true }), logger, options.patchActivationCallback));
  await Promise.all(
    threads.map((thread) =>
      thread.send({
        type: 'init',
        workflowBundle: bundle,
        isolateExecutionTimeoutMs: options.isolateExecutionTimeoutMs,
        reuseV8Context: options.reuseV8Context ?? true,
        registeredActivityNames: new Set(options.activities.keys()),
        hasPatchActivationCallback: options.patchActivationCallback !== undefined,
      }),
    ),
  );
  return new ThreadedVMWorkflowCreator(threads);
}
