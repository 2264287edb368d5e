#!/usr/bin/env node
// The `ferry` command: the TypeScript CLI run through tsx, so a clone works without a build step.
'use strict';
require('tsx/cjs');

/**
 * Exits once stdout and stderr have handed everything to the OS: on a pipe Node writes asynchronously,
 * and an immediate process.exit would cut `ferry discover --json | jq` at the pipe's buffer size.
 */
function exitWhenFlushed(code) {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

require('../cli/main.ts')
  .main(process.argv)
  .then(exitWhenFlushed)
  .catch((err) => {
    console.error(err && err.message ? err.message : err);
    exitWhenFlushed(1);
  });
