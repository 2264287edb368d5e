import { Worker } from '@temporalio/worker';

/** Every Worker a test file creates, for test/harness/environment.js to stop if the file leaves one running. */
const created = new Set<Worker>();
(globalThis as { __ferryWorkers?: Set<Worker> }).__ferryWorkers = created;

const create = Worker.create.bind(Worker);
Worker.create = async (options) => {
  const worker = await create(options);
  created.add(worker);
  return worker;
};
