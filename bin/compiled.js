// Whether bin/ferry.js may run the compiled CLI in dist/ rather than the TypeScript sources.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

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
    const full = path.join(entry, child.name);
    if (child.isDirectory() ? changedSince(full, since) : child.name.endsWith('.ts') && fs.statSync(full).mtimeMs > since) return true;
  }
  return false;
}

/**
 * dist/.built holds the time scripts/build-dist.sh started its build: the build is current while no
 * source is newer. A clone without sources (a container image) runs what it was built with.
 */
function compiledIsCurrent(root) {
  let built;
  try {
    built = fs.statSync(path.join(root, 'dist', '.built')).mtimeMs;
  } catch {
    return false;
  }
  if (!fs.existsSync(path.join(root, 'cli', 'main.ts'))) return true;
  return !SOURCES.some((entry) => changedSince(path.join(root, entry), built));
}

module.exports = { compiledIsCurrent, SOURCES };
