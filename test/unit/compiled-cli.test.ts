import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// bin/ is plain JavaScript (it decides whether TypeScript is needed at all).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compiledIsCurrent } = require('../../bin/compiled.js') as { compiledIsCurrent(root: string): boolean };

describe('bin/ferry.js runs dist/ only while it is current', () => {
  let root: string;
  const at = (file: string, seconds: number) => utimesSync(path.join(root, file), seconds, seconds);
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'ferry-compiled-'));
    mkdirSync(path.join(root, 'cli', 'commands'), { recursive: true });
    mkdirSync(path.join(root, 'dist'));
    for (const file of ['cli/main.ts', 'cli/commands/status.ts', 'tsconfig.json']) writeFileSync(path.join(root, file), '');
    for (const entry of ['cli/main.ts', 'cli/commands/status.ts', 'cli/commands', 'cli', 'tsconfig.json']) at(entry, 1000);
    writeFileSync(path.join(root, 'dist', '.built'), '');
    at('dist/.built', 2000);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('runs dist/ when the build started after every source was saved', () => {
    expect(compiledIsCurrent(root)).toBe(true);
  });

  it('runs the sources when one was saved after the build started, however deep', () => {
    at('cli/commands/status.ts', 3000);
    expect(compiledIsCurrent(root)).toBe(false);
  });

  it('runs the sources when a file was added or removed since (the folder changed)', () => {
    at('cli/commands', 3000);
    expect(compiledIsCurrent(root)).toBe(false);
  });

  it('runs the sources when the compiler settings changed', () => {
    at('tsconfig.json', 3000);
    expect(compiledIsCurrent(root)).toBe(false);
  });

  it('runs the sources when nothing was built', () => {
    rmSync(path.join(root, 'dist', '.built'));
    expect(compiledIsCurrent(root)).toBe(false);
  });

  it('runs dist/ in an installation without sources (a container image)', () => {
    rmSync(path.join(root, 'cli'), { recursive: true });
    at('dist/.built', 1);
    expect(compiledIsCurrent(root)).toBe(true);
  });
});
