import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderInChromium, type Rendered } from './chromium';
import { ROOT } from './processes';

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A bash script that exports `env`, enters the repository and runs `ferry …args` as a user would:
 * in its place (`exec`), or followed by a line with its exit code (`showExit`).
 */
export function ferryScript(
  file: string,
  env: Record<string, string>,
  args: string[],
  { showExit = false }: { showExit?: boolean } = {},
): string {
  const ferry = [process.execPath, 'bin/ferry.js', ...args].map(shellQuote).join(' ');
  writeFileSync(
    file,
    [
      ...Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
      `cd ${shellQuote(ROOT)}`,
      ...(showExit ? [ferry, 'echo "[exit $?]"'] : [`exec ${ferry}`]),
    ].join('\n'),
  );
  return file;
}

/**
 * Runs `ferry …args` on a terminal as a person would (a 160×40 tmux pane, `env` exported, in the
 * repository) and returns all it printed once it exited (wrapped lines joined) and its exit code.
 */
export async function ferryOnTerminal(
  dir: string,
  env: Record<string, string>,
  args: string[],
  timeoutMs = 120_000,
): Promise<{ screen: string; code: number }> {
  const name = `ferry-term-${process.pid}-${++terminals}`;
  const script = ferryScript(path.join(dir, `${name}.sh`), env, args, { showExit: true });
  const pane = TmuxPane.start(name, script);
  try {
    const screen = await pane.waitFor('the command exit', (s) => /\[exit \d+\]/.test(s), timeoutMs);
    return { screen: pane.capture(true), code: Number(/\[exit (\d+)\]/.exec(screen)![1]) };
  } finally {
    pane.kill();
  }
}
let terminals = 0;

/**
 * One tmux pane of a fixed size on a tmux server of its own (socket name): the command runs in it as on
 * a person's terminal, and what the screen shows is read with capture-pane.
 */
export class TmuxPane {
  private constructor(private readonly socket: string) {}

  /** Runs `bash script` in a new pane; the pane stays (a sleep) once it exits, to be read. */
  static start(socket: string, script: string, size = { columns: 160, rows: 40 }): TmuxPane {
    const pane = new TmuxPane(socket);
    pane.tmux(
      'new-session',
      '-d',
      '-x',
      String(size.columns),
      '-y',
      String(size.rows),
      `bash ${shellQuote(script)}; sleep 600`,
    );
    return pane;
  }

  /**
   * The screen as it is now; `all`: everything the pane printed (its scrollback too), each line the
   * terminal wrapped joined again, without the blanks that fill a line to the pane's width.
   */
  capture(all = false): string {
    if (!all) return this.tmux('capture-pane', '-p', '-t', '0');
    return this.tmux('capture-pane', '-p', '-J', '-S', '-', '-t', '0')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n');
  }

  /** Reads the screen every half second until `test` holds for it; returns that screen, or fails with the last one. */
  async waitFor(what: string, test: (screen: string) => boolean, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.capture();
      if (test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the screen never showed ${what}; it shows:\n${screen}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  kill(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}

/**
 * A captured screen drawn as a terminal draws it (light text on black, monospace, one line per row),
 * screenshot in chromium: a picture of what the person saw, to look at after the run.
 */
export function screenToPng(screen: string, pngFile: string, size = { width: 1400, height: 760 }): Promise<Rendered> {
  const htmlFile = pngFile.replace(/\.png$/, '.html');
  const escaped = screen.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  writeFileSync(
    htmlFile,
    `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#111;color:#ddd">` +
      `<pre style="margin:8px;font:14px/17px 'DejaVu Sans Mono',monospace">${escaped}</pre></body>`,
  );
  return renderInChromium(htmlFile, pngFile, size);
}
