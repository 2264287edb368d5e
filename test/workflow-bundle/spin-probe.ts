/** Never yields: what a worker does when workflow code loops (shared-workflow-thread.test.ts). */
export async function spinWithoutYielding(): Promise<never> {
  for (;;) {
    // spins on purpose
  }
}
