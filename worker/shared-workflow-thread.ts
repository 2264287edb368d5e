import { Worker, type CompiledWorkerOptions } from '@temporalio/worker';
import type { Logger } from '@temporalio/common';
import type { WorkflowCreator } from '@temporalio/worker/lib/workflow/interface';
import type { WorkflowBundleWithSourceMapAndFilename } from '@temporalio/worker/lib/workflow/workflow-worker-thread/input';
import { startWorkflowThread } from './workflow-thread';

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
 * The thread is ferry's own start of the SDK's (worker/workflow-thread.ts): watched from the main thread
 * instead of by a watchdog per call, and with `stackTraces: false` without the SDK's promise hook.
 */
export function workerClassSharingOneWorkflowThread({
  stackTraces = true,
}: { stackTraces?: boolean } = {}): typeof Worker {
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
        // debugMode runs workflows in this thread, as the SDK does (for a debugger).
        thread = options.debugMode
          ? super.createWorkflowCreator(bundle, options, logger)
          : startWorkflowThread(bundle, options, logger, { promiseStacks: stackTraces });
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
