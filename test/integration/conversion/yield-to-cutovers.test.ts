import { spawn, type ChildProcess } from 'node:child_process';
import { CONVERSION_MARKER, ConversionYield, conversionProcesses } from '../../../src/conversion/yield-to-cutovers';
import { processState } from '../../helpers/processes';

const stopped = (p: ChildProcess) => processState(p.pid!) === 'T';

async function until(what: string, check: () => boolean, timeoutMs = 3_000): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

/**
 * The worker's side of "conversions yield to cutovers", on real processes: what carries this worker's
 * marker is stopped while a downtime activity holds, and continued after the linger or the cap; nothing
 * else is touched.
 */
describe('conversions yield to cutovers: the processes', () => {
  jest.setTimeout(60_000);
  const children: ChildProcess[] = [];
  const start = (owner: number | undefined, command = 'sleep 120') => {
    const env = { ...process.env, ...(owner !== undefined ? { [CONVERSION_MARKER]: String(owner) } : {}) };
    const child = spawn('sh', ['-c', `exec ${command}`], { env, stdio: 'ignore' });
    children.push(child);
    return child;
  };
  let conversions: ConversionYield | undefined;
  afterEach(() => {
    conversions?.close();
    conversions = undefined;
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });

  it('stops this worker’s conversions while held, the late ones too, and continues them after the linger', async () => {
    const ours = [start(process.pid), start(process.pid)];
    const otherWorkers = start(process.ppid); // another live worker's conversion: not ours to pause
    const plain = start(undefined);
    await until('the marked processes are found', () => conversionProcesses(process.pid).length === 2);
    const lines: string[] = [];
    conversions = new ConversionYield({ lingerMs: 400, atMostMs: 20_000 }, (l) => lines.push(l));

    const release = conversions.hold();
    expect(conversions.paused).toBe(true);
    await until('both conversions stop', () => ours.every(stopped));
    expect(processState(otherWorkers.pid!)).not.toBe('T');
    expect(processState(plain.pid!)).not.toBe('T');

    // virt-v2v starts its appliance minutes in: one that starts during a pause is stopped too.
    const late = start(process.pid);
    const caught = await until('the late conversion stops', () => stopped(late));
    expect(caught).toBeLessThan(2_000);

    // A second holder, and the first ends: still paused.
    const second = conversions.hold();
    release();
    release(); // twice is once
    await new Promise((r) => setTimeout(r, 600));
    expect([...ours, late].every(stopped)).toBe(true);

    second();
    const resumedAfter = await until('the conversions go on', () => ![...ours, late].some(stopped));
    expect(resumedAfter).toBeGreaterThanOrEqual(300); // the linger
    expect(conversions.paused).toBe(false);
    expect(conversions.totals()).toMatchObject({ pauses: 1 });
    expect(conversions.totals().pausedMs).toBeGreaterThanOrEqual(1_000);
    expect(lines).toEqual([
      'conversions yield to a cutover: 2 conversion process(es) paused',
      expect.stringMatching(
        /^conversions go on: 3 process\(es\) continued after \d+\.\d s \(1 pause\(s\), \d+\.\d s paused in all\)$/,
      ),
    ]);
  });

  it('ends a pause at atMost while held, and pauses again only after as long a run', async () => {
    const ours = start(process.pid);
    await until('the marked process is found', () => conversionProcesses(process.pid).length === 1);
    conversions = new ConversionYield({ lingerMs: 100, atMostMs: 800 });
    const release = conversions.hold();
    await until('it stops', () => stopped(ours));
    const capped = await until('the cap lets it go on while still held', () => !stopped(ours));
    expect(capped).toBeGreaterThanOrEqual(600);
    const again = await until('it stops again after as long a run', () => stopped(ours));
    expect(again).toBeGreaterThanOrEqual(600);
    release();
    await until('it goes on once nothing holds', () => !stopped(ours));
    expect(conversions.totals().pauses).toBe(2);
  });

  it('a cutover with nothing converting stops nothing, logs nothing and counts no pause', async () => {
    const plain = start(undefined);
    const lines: string[] = [];
    conversions = new ConversionYield({ lingerMs: 50, atMostMs: 1_000 }, (l) => lines.push(l));
    const release = conversions.hold();
    expect(conversions.paused).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    release();
    await until('the pause ends', () => !conversions!.paused);
    expect(processState(plain.pid!)).not.toBe('T');
    expect(lines).toEqual([]);
    expect(conversions.totals()).toEqual({ pauses: 0, pausedMs: 0 });
  });

  it('closing (the worker shuts down) continues what a pause stopped', async () => {
    const ours = start(process.pid);
    await until('the marked process is found', () => conversionProcesses(process.pid).length === 1);
    conversions = new ConversionYield({ lingerMs: 60_000, atMostMs: 60_000 });
    conversions.hold();
    await until('it stops', () => stopped(ours));
    conversions.close();
    conversions = undefined;
    await until('it goes on', () => !stopped(ours));
  });

  it('a new worker continues the paused conversions of a worker that died', async () => {
    const dead = spawn('true');
    await new Promise((r) => dead.on('exit', r));
    const orphan = start(dead.pid!);
    await until('the orphan is found', () => conversionProcesses(dead.pid!).length === 1);
    orphan.kill('SIGSTOP');
    await until('the orphan is stopped', () => stopped(orphan));
    conversions = new ConversionYield({ lingerMs: 100, atMostMs: 1_000 });
    await until('the orphan goes on', () => !stopped(orphan));
  });
});
