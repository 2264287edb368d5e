import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// bin/ is plain JavaScript (it decides whether TypeScript is needed at all).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compiledIsCurrent, writeManifest } = require('../../bin/compiled.js') as {
  compiledIsCurrent(root: string): boolean;
  writeManifest(root: string): void;
};

describe.each([
  ['with the build’s list of sources (dist/.sources)', true],
  ['without it (an older build: every folder is walked)', false],
])('bin/ferry.js runs dist/ only while it is current, %s', (_label, manifest) => {
  let root: string;
  const at = (file: string, seconds: number) => utimesSync(path.join(root, file), seconds, seconds);
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'ferry-compiled-'));
    mkdirSync(path.join(root, 'cli', 'commands'), { recursive: true });
    mkdirSync(path.join(root, 'dist'));
    for (const file of ['cli/main.ts', 'cli/commands/status.ts', 'tsconfig.json'])
      writeFileSync(path.join(root, file), '');
    for (const entry of ['cli/main.ts', 'cli/commands/status.ts', 'cli/commands', 'cli', 'tsconfig.json'])
      at(entry, 1000);
    if (manifest) writeManifest(root);
    writeFileSync(path.join(root, 'dist', '.built'), '');
    at('dist/.built', 2000);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('runs dist/ when the build started after every source was saved', () => {
    expect(existsSync(path.join(root, 'dist', '.sources'))).toBe(manifest);
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

  it('runs the sources when a file was added in a new folder', () => {
    mkdirSync(path.join(root, 'cli', 'fresh'));
    writeFileSync(path.join(root, 'cli', 'fresh', 'new.ts'), '');
    expect(compiledIsCurrent(root)).toBe(false);
  });

  it('runs the sources when a file the build compiled is gone, whatever the folder times say', () => {
    rmSync(path.join(root, 'cli', 'commands', 'status.ts'));
    at('cli/commands', 1000);
    expect(compiledIsCurrent(root)).toBe(!manifest);
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

describe('dist/.sources', () => {
  it('lists every source folder and .ts file, and is what the check reads (no walk of the tree)', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'ferry-compiled-'));
    try {
      mkdirSync(path.join(root, 'cli', 'commands'), { recursive: true });
      mkdirSync(path.join(root, 'dist'));
      for (const file of ['cli/main.ts', 'cli/commands/status.ts', 'cli/notes.md', 'worker.ts'])
        writeFileSync(path.join(root, file), '');
      writeManifest(root);
      expect(
        readFileSync(path.join(root, 'dist', '.sources'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .sort(),
      ).toEqual(['cli', 'cli/commands', 'cli/commands/status.ts', 'cli/main.ts', 'worker.ts']);
      writeFileSync(path.join(root, 'dist', '.built'), '');
      // A list naming one file: only that one is looked at, so an unlisted newer folder does not count.
      writeFileSync(path.join(root, 'dist', '.sources'), 'worker.ts\n');
      utimesSync(path.join(root, 'worker.ts'), 1000, 1000);
      utimesSync(path.join(root, 'cli'), 5e9, 5e9);
      expect(compiledIsCurrent(root)).toBe(true);
      utimesSync(path.join(root, 'worker.ts'), 5e9, 5e9);
      expect(compiledIsCurrent(root)).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
