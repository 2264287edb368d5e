// The node environment, plus: a Temporal worker a test file left running (a test that timed out inside
// worker.runUntil, a helper never stopped) is shut down when the file ends, and the file fails saying so.
// Left alone it polls on after the global teardown stops the server, and jest never exits.
const { TestEnvironment } = require('jest-environment-node');

const STOPPED = new Set(['STOPPED', 'FAILED']);

class FerryTestEnvironment extends TestEnvironment {
  async teardown() {
    const workers = [...(this.global.__ferryWorkers ?? [])];
    const running = workers.filter((w) => !STOPPED.has(w.getState()) && w.getState() !== 'INITIALIZED');
    for (const w of running) if (w.getState() === 'RUNNING') w.shutdown();
    const deadline = Date.now() + 30_000;
    while (running.some((w) => !STOPPED.has(w.getState())) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    await super.teardown();
    if (running.length > 0) {
      const queues = running.map((w) => w.options.taskQueue).join(', ');
      throw new Error(
        `${running.length} Temporal worker(s) were still running when this file's tests ended (${queues}); they were shut down`,
      );
    }
  }
}

module.exports = FerryTestEnvironment;
