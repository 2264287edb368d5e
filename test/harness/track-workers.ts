import { Worker } from '@temporalio/worker';

/** Every Worker a test file creates, for test/harness/environment.js to stop if the file leaves one running. */
const created = new Set<Worker>();
(globalThis as { __ferryWorkers?: Set<Worker> }).__ferryWorkers = created;

// Called on the class it is called on, so a subclass's static overrides (worker/shared-workflow-thread.ts) still apply.
const create = Worker.create;
Worker.create = async function (this: typeof Worker, options) {
  const worker = await create.call(this, options);
  created.add(worker);
  return worker;
};
