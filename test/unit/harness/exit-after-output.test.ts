import { spawn } from 'node:child_process';
import { exitAfterOutput } from '../../helpers/processes';

function run(script: string) {
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return { child, output: () => output };
}

describe("a child's exit, with its output read", () => {
  it('resolves with the exit code only once every byte written before the exit has been read', async () => {
    // Enough output that the pipe is read in many chunks, some after the child is gone.
    for (let i = 0; i < 5; i++) {
      const { child, output } = run('head -c 400000 /dev/zero | tr "\\0" x; echo done >&2; exit 3');
      const code = await exitAfterOutput(child);
      expect(code).toBe(3);
      expect(output().length).toBe(400_000 + 'done\n'.length);
    }
  });

  it('does not wait past its cap for pipes a grandchild keeps open', async () => {
    const { child, output } = run('sleep 3 & echo started; exit 4');
    const started = Date.now();
    const code = await exitAfterOutput(child, 300);
    expect(code).toBe(4);
    expect(output()).toBe('started\n');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
