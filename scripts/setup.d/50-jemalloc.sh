# debian: libjemalloc2
# Debian's jemalloc: bin/ferry-worker preloads it (glibc's per-thread malloc arenas kept the start
# burst's memory resident; docs/benchmarks.md), and test/integration/worker/allocator.test.ts checks it.
