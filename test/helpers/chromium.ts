import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, run } from './processes';

/** Debian's chromium, installed by scripts/setup.d/50-chromium.sh (FERRY_CHROMIUM_BIN overrides it). */
export function chromiumPath(): string {
  return process.env.FERRY_CHROMIUM_BIN ?? path.join(ROOT, '.tools', 'bin', 'chromium');
}

export interface Rendered {
  /** The DOM after the browser parsed and laid out the page. */
  dom: string;
  /** What chromium logged: page console messages appear here as `CONSOLE(…)`, failed loads as `net::ERR_…`. */
  log: string;
  png: Buffer;
  width: number;
  height: number;
}

/**
 * Opens a local HTML file in headless chromium as a person would see it, with every host name
 * unresolvable (a page that fetches anything logs the failure): a screenshot and the parsed DOM.
 */
/**
 * Headless chromium as every view test starts it: its own profile, no GPU, no first-run screens, the
 * window exactly `size`, and every host name unresolvable unless `reachable` lets it through (a page that
 * fetches anything else logs the failure).
 */
export function headlessArgs(
  profile: string,
  size: { width: number; height: number },
  reachable: string[] = [],
): string[] {
  const exclude = reachable.map((host) => `, EXCLUDE ${host}`).join('');
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--hide-scrollbars',
    '--no-first-run',
    `--user-data-dir=${profile}`,
    `--host-resolver-rules=MAP * ~NOTFOUND${exclude}`,
    `--window-size=${size.width},${size.height}`,
  ];
}

export async function renderInChromium(
  htmlFile: string,
  pngFile: string,
  size = { width: 1280, height: 1000 },
): Promise<Rendered> {
  const profile = mkdtempSync(path.join(tmpdir(), 'ferry-chromium-'));
  const common = [...headlessArgs(profile, size), '--enable-logging=stderr', '--v=0'];
  try {
    const url = pathToFileURL(htmlFile).href;
    const shot = await run(chromiumPath(), [...common, `--screenshot=${pngFile}`, url], { timeoutMs: 90_000 });
    const dump = await run(chromiumPath(), [...common, '--dump-dom', url], { timeoutMs: 90_000 });
    if (shot.code !== 0 || dump.code !== 0)
      throw new Error(`chromium failed (${shot.code}, ${dump.code}):\n${shot.stderr}\n${dump.stderr}`);
    const png = readFileSync(pngFile);
    // PNG: the IHDR chunk right after the 8-byte signature holds width and height.
    return {
      dom: dump.stdout,
      log: `${shot.stderr}\n${dump.stderr}`,
      png,
      width: png.readUInt32BE(16),
      height: png.readUInt32BE(20),
    };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * Copies a test's screenshot to $FERRY_TEST_SCREENS when it is set, so a person can look at what the
 * test saw after the run (the test's own folder is removed).
 */
export function keepScreenshot(pngFile: string): void {
  const dir = process.env.FERRY_TEST_SCREENS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  copyFileSync(pngFile, path.join(dir, path.basename(pngFile)));
}
