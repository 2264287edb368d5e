#!/usr/bin/env node
// The `ferry` command: the TypeScript CLI run through tsx, so a clone works without a build step.
'use strict';
require('tsx/cjs');
require('../cli/main.ts')
  .main(process.argv)
  .then((code) => process.exit(code))
  .catch((err) => {
    console.error(err && err.message ? err.message : err);
    process.exit(1);
  });
