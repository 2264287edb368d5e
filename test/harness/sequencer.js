// Orders test files for wall time. `npm test` runs two jest workers, and a worker takes the next file
// whenever it is free. The lab e2e (minutes of TCG guests and two conversions) goes first, beside the
// many short files, instead of ending the run alone on one worker; the rest follow by folder
// (unit → integration → workflow → replay → e2e), quick failures first, and by path within a folder.
// That order reaches the other long file, real-guests (three guests and a conversion), about when the lab
// is done: run side by side, the two took 740 and 620 s instead of ~300 and ~500 (docs/testing.md).
const Sequencer = require('@jest/test-sequencer').default;

const FIRST = ['test/e2e/lab.test.ts'];
const ORDER = ['unit', 'integration', 'workflow', 'replay', 'e2e'];

const firstRank = (p) => {
  const i = FIRST.findIndex((file) => p.endsWith(`/${file}`));
  return i === -1 ? FIRST.length : i;
};
const folderRank = (p) => {
  const i = ORDER.findIndex((dir) => p.includes(`/test/${dir}/`));
  return i === -1 ? ORDER.length : i;
};

class FerrySequencer extends Sequencer {
  sort(tests) {
    return [...tests].sort(
      (a, b) =>
        firstRank(a.path) - firstRank(b.path) ||
        folderRank(a.path) - folderRank(b.path) ||
        a.path.localeCompare(b.path),
    );
  }
}

module.exports = FerrySequencer;
