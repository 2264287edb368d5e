// Orders test files for wall time. `npm test` runs two jest workers, and a worker takes the next file
// whenever it is free: the files that take minutes (real guests under TCG, conversions, the lab) go first,
// longest first, so they run beside the many short files instead of ending the run alone. The rest
// follow by folder (unit → integration → workflow → replay → e2e), so quick failures still come early,
// and within a folder by path.
const Sequencer = require('@jest/test-sequencer').default;

// Measured on the 2-core machine (docs/testing.md#wall-time); longest first.
const SLOW_FIRST = [
  'test/e2e/lab.test.ts',
  'test/integration/migration/real-guests.test.ts',
  'test/integration/migration/overlay-cutover.test.ts',
  'test/e2e/chaos.test.ts',
];
const ORDER = ['unit', 'integration', 'workflow', 'replay', 'e2e'];

const slowRank = (p) => {
  const i = SLOW_FIRST.findIndex((file) => p.endsWith(`/${file}`));
  return i === -1 ? SLOW_FIRST.length : i;
};
const folderRank = (p) => {
  const i = ORDER.findIndex((dir) => p.includes(`/test/${dir}/`));
  return i === -1 ? ORDER.length : i;
};

class FerrySequencer extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => slowRank(a.path) - slowRank(b.path) || folderRank(a.path) - folderRank(b.path) || a.path.localeCompare(b.path));
  }
}

module.exports = FerrySequencer;
