#!/usr/bin/env node
// The `ferry` command. It runs the compiled CLI in dist/ (`npm run build`; scripts/setup.sh builds it)
// while that build is at least as new as every source file (bin/compiled.js), else the TypeScript
// sources through tsx: a clone or an edit works without a build step, and a stale dist/ never runs
// older code than the sources. FERRY_FROM_SOURCE=1 always runs the sources.
'use strict';
const path = require('node:path');
const { compiledIsCurrent } = require('./compiled');

/**
 * Exits once stdout and stderr have handed everything to the OS: on a pipe Node writes asynchronously,
 * and an immediate process.exit would cut `ferry discover --json | jq` at the pipe's buffer size.
 */
function exitWhenFlushed(code) {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

let cli;
if (process.env.FERRY_FROM_SOURCE !== '1' && compiledIsCurrent(path.resolve(__dirname, '..'))) {
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
