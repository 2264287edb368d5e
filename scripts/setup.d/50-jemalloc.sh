# Debian's jemalloc: bin/ferry-worker preloads it (glibc's per-thread malloc arenas kept the start
# burst's memory resident; docs/benchmarks.md), and test/integration/worker/allocator.test.ts checks it.
apt_install_jemalloc() { apt_install libjemalloc2; }
with_lock apt apt_install_jemalloc
