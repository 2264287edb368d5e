import { promisify } from 'node:util';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const FerryTestEnvironment = require('../../harness/environment.js') as new (
  config: unknown,
  context: unknown,
) => { global: typeof globalThis; setup(): Promise<void>; teardown(): Promise<void> };

/** An environment as jest makes one for a test file. */
async function environment() {
  const env = new FerryTestEnvironment(
    { globalConfig: {}, projectConfig: { testEnvironmentOptions: {}, globals: {}, injectGlobals: true } },
    { console, docblockPragmas: {}, testPath: __filename },
  );
  await env.setup();
  return env;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the test environment clears a file's timers when the file ends", () => {
  it('a timeout or interval left pending does not fire after teardown', async () => {
    const env = await environment();
    const fired: string[] = [];
    env.global.setTimeout(() => fired.push('timeout'), 50);
    env.global.setInterval(() => fired.push('interval'), 50);
    await env.teardown();
    await pause(150);
    expect(fired).toEqual([]);
  });

  it('a timer asked for after teardown (a retry of a call that failed late) never fires', async () => {
    const env = await environment();
    await env.teardown();
    const fired: string[] = [];
    env.global.setTimeout(() => fired.push('late timeout'), 10);
    env.global.setInterval(() => fired.push('late interval'), 10);
    await pause(60);
    expect(fired).toEqual([]);
  });

  it('timers still fire while the file runs, and one cleared by the test stays cleared', async () => {
    const env = await environment();
    const fired: string[] = [];
    env.global.setTimeout(() => fired.push('fired'), 10);
    const cleared = env.global.setTimeout(() => fired.push('cleared'), 10);
    env.global.clearTimeout(cleared);
    const tick = env.global.setInterval(() => fired.push('tick'), 10);
    await pause(45);
    env.global.clearInterval(tick);
    await env.teardown();
    expect(fired[0]).toBe('fired');
    expect(fired).not.toContain('cleared');
    expect(fired.filter((f) => f === 'tick').length).toBeGreaterThanOrEqual(2);
  });

  it('keeps util.promisify(setTimeout) working', async () => {
    const env = await environment();
    const sleep = promisify(env.global.setTimeout) as (ms: number, value: string) => Promise<string>;
    await expect(sleep(5, 'done')).resolves.toBe('done');
    await env.teardown();
  });
});
