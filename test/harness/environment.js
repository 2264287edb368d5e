// The node environment, plus:
// - a Temporal worker a test file left running (a test that timed out inside worker.runUntil, a helper
//   never stopped) is shut down when the file ends, and the file fails saying so. Left alone it polls on
//   after the global teardown stops the server, and jest never exits.
// - a timer a test file left behind is cleared when the file ends, and none starts after. Timers are
//   process-wide: the Temporal client's retry of a call cut off by a test's timeout fires after the file
//   closed its connection (or schedules itself then, once the call fails), throws "Channel has been shut
//   down", and jest blames whichever file runs next in that process.
const { TestEnvironment } = require('jest-environment-node');

const STOPPED = new Set(['STOPPED', 'FAILED']);

/**
 * Wraps the environment's setTimeout/setInterval to remember the timers still to fire; the returned
 * function clears them and makes every later one a no-op.
 */
function trackTimers(global) {
  const live = new Set();
  let ended = false;
  for (const [set, clear, once] of [
    ['setTimeout', 'clearTimeout', true],
    ['setInterval', 'clearInterval', false],
  ]) {
    const originalSet = global[set];
    const originalClear = global[clear];
    const wrapped = function (callback, ...rest) {
      if (typeof callback !== 'function') return originalSet(callback, ...rest);
      if (ended) {
        const never = originalSet(() => undefined, 0);
        originalClear(never);
        return never;
      }
      const timer = originalSet(
        function (...args) {
          if (once) live.delete(timer);
          return callback.apply(this, args);
        },
        ...rest,
      );
      live.add(timer);
      return timer;
    };
    // util.promisify(setTimeout) and friends read these.
    Object.defineProperties(wrapped, Object.getOwnPropertyDescriptors(originalSet));
    global[set] = wrapped;
    global[clear] = function (timer) {
      live.delete(timer);
      return originalClear(timer);
    };
  }
  return () => {
    ended = true;
    for (const timer of live) clearTimeout(timer);
    live.clear();
  };
}

class FerryTestEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.clearTimers = trackTimers(this.global);
  }

  async teardown() {
    const workers = [...(this.global.__ferryWorkers ?? [])];
    const running = workers.filter((w) => !STOPPED.has(w.getState()) && w.getState() !== 'INITIALIZED');
    for (const w of running) if (w.getState() === 'RUNNING') w.shutdown();
    const deadline = Date.now() + 30_000;
    while (running.some((w) => !STOPPED.has(w.getState())) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    this.clearTimers();
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
