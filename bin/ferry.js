#!/usr/bin/env node
// The `ferry` command. It runs the compiled CLI in dist/ (`npm run build`; scripts/setup.sh builds it)
// when that build is at least as new as every source file, else the TypeScript sources through tsx:
// a clone or an edit works without a build step, and a stale dist/ never runs older code than the sources.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
/** Written by scripts/build-dist.sh with the time its build started (a source saved later is newer). */
const BUILT_STAMP = path.join(ROOT, 'dist', '.built');
/** What dist/ is compiled from (tsconfig.build.json's include, plus the compiler settings). */
const SOURCES = ['worker.ts', 'src', 'activities', 'workflows', 'worker', 'lab', 'cli', 'scripts/build-bundle.ts', 'tsconfig.json', 'tsconfig.build.json'];

/** Whether a file or folder under `entry` (folders: their .ts files and subfolders) changed after `since`. */
function changedSince(entry, since) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return false;
  }
  // A folder's own time changes when a file in it is added, removed or renamed.
  if (stat.mtimeMs > since) return true;
  if (!stat.isDirectory()) return false;
  for (const child of fs.readdirSync(entry, { withFileTypes: true })) {
    if (child.isDirectory() ? changedSince(path.join(entry, child.name), since) : child.name.endsWith('.ts') && fs.statSync(path.join(entry, child.name)).mtimeMs > since) {
      return true;
    }
  }
  return false;
}

function compiledIsCurrent() {
  if (process.env.FERRY_FROM_SOURCE === '1') return false;
  let built;
  try {
    built = fs.statSync(BUILT_STAMP).mtimeMs;
  } catch {
    return false;
  }
  // An installation without the sources (a container image) runs what it was built with.
  if (!fs.existsSync(path.join(ROOT, 'cli', 'main.ts'))) return true;
  return !SOURCES.some((entry) => changedSince(path.join(ROOT, entry), built));
}

/**
 * Exits once stdout and stderr have handed everything to the OS: on a pipe Node writes asynchronously,
 * and an immediate process.exit would cut `ferry discover --json | jq` at the pipe's buffer size.
 */
function exitWhenFlushed(code) {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

let cli;
if (compiledIsCurrent()) {
  cli = require('../dist/cli/main.js');
} else {
  require('tsx/cjs');
  cli = require('../cli/main.ts');
}
cli
  .main(process.argv)
  .then(exitWhenFlushed)
  .catch((err) => {
    console.error(err && err.message ? err.message : err);
    exitWhenFlushed(1);
  });
