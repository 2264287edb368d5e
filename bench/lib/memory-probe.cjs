// Preloaded into a benchmark's worker (`node --require`): on SIGUSR2 it writes what every isolate holds
// to $FERRY_MEMORY_PROBE_DIR: the process's memory usage, and a heap snapshot of the main thread and of
// each worker thread (the SDK runs workflows in one). `--heapsnapshot-signal` reaches only the main
// thread, so the threads are found by wrapping worker_threads.Worker before the SDK loads it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');
const threads = require('node:worker_threads');
const { pipeline } = require('node:stream/promises');

const dir = process.env.FERRY_MEMORY_PROBE_DIR;
if (dir && threads.isMainThread) {
  const live = new Set();
  const OriginalWorker = threads.Worker;
  threads.Worker = class extends OriginalWorker {
    constructor(...args) {
      super(...args);
      live.add(this);
      this.once('exit', () => live.delete(this));
    }
  };
  process.on('SIGUSR2', async () => {
    fs.mkdirSync(dir, { recursive: true });
    const stamp = Date.now();
    const before = { ...process.memoryUsage(), threads: live.size };
    v8.writeHeapSnapshot(path.join(dir, `${stamp}-main.heapsnapshot`));
    let i = 0;
    for (const worker of live) {
      const stream = await worker.getHeapSnapshot();
      await pipeline(stream, fs.createWriteStream(path.join(dir, `${stamp}-thread${i++}.heapsnapshot`)));
    }
    // A heap snapshot collects garbage first: the main thread's heap after it is its live size (RSS then
    // also holds the snapshots' own buffers, so it says nothing here).
    const { heapTotal, heapUsed } = process.memoryUsage();
    const afterFullGc = { heapTotal, heapUsed };
    fs.writeFileSync(path.join(dir, `${stamp}-usage.json`), JSON.stringify({ before, afterFullGc }, null, 2));
    fs.writeFileSync(path.join(dir, `${stamp}-done`), '');
  });
}
