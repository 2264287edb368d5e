// Whether bin/ferry.js may run the compiled CLI in dist/ rather than the TypeScript sources.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** What dist/ is compiled from (tsconfig.build.json's include, plus the compiler settings). */
const SOURCES = [
  'worker.ts',
  'src',
  'activities',
  'workflows',
  'worker',
  'lab',
  'cli',
  'scripts/build-bundle.ts',
  'tsconfig.json',
  'tsconfig.build.json',
];

/** dist/.sources: every source folder and .ts file as the build found them, one path (relative to the clone) a line. */
const MANIFEST = path.join('dist', '.sources');

/** The source folders and .ts files under `entry` (relative to `root`), the entry itself first. */
function sourcesUnder(root, entry, into) {
  let stat;
  try {
    stat = fs.statSync(path.join(root, entry));
  } catch {
    return into;
  }
  into.push(entry);
  if (!stat.isDirectory()) return into;
  for (const child of fs.readdirSync(path.join(root, entry), { withFileTypes: true })) {
    const rel = `${entry}/${child.name}`;
    if (child.isDirectory()) sourcesUnder(root, rel, into);
    else if (child.name.endsWith('.ts')) into.push(rel);
  }
  return into;
}

/** Every source path dist/ is built from (what scripts/build-dist.sh writes into dist/.sources before it compiles). */
function listSources(root) {
  const all = [];
  for (const entry of SOURCES) sourcesUnder(root, entry, all);
  return all;
}

function writeManifest(root) {
  fs.writeFileSync(path.join(root, MANIFEST), `${listSources(root).join('\n')}\n`);
}

/** Whether any of `paths` (relative to `root`) is gone or changed after `since`. */
function anyChangedSince(root, paths, since) {
  for (const rel of paths) {
    const stat = fs.statSync(`${root}/${rel}`, { throwIfNoEntry: false });
    if (stat === undefined || stat.mtimeMs > since) return true;
  }
  return false;
}

/**
 * dist/.built holds the time scripts/build-dist.sh started its build: the build is current while no
 * source is newer. The folders and files to look at come from dist/.sources (no walk of the tree: one
 * stat each); a file added, removed or renamed changes its folder's time, and an edit the file's own.
 * Without the list (an older build) every folder is walked. A clone without sources (a container
 * image) runs what it was built with.
 */
function compiledIsCurrent(root) {
  const built = fs.statSync(path.join(root, 'dist', '.built'), { throwIfNoEntry: false });
  if (built === undefined) return false;
  if (!fs.existsSync(path.join(root, 'cli', 'main.ts'))) return true;
  let listed;
  try {
    listed = fs.readFileSync(path.join(root, MANIFEST), 'utf8').split('\n').filter(Boolean);
  } catch {
    listed = listSources(root);
  }
  return !anyChangedSince(root, listed, built.mtimeMs);
}

module.exports = { compiledIsCurrent, listSources, writeManifest, SOURCES };
