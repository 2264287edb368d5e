// Runs test folders in a fixed order (unit → integration → workflow → replay → e2e) so quick failures
// come first; within a folder, by path.
const Sequencer = require('@jest/test-sequencer').default;

const ORDER = ['unit', 'integration', 'workflow', 'replay', 'e2e'];
const rank = (p) => {
  const i = ORDER.findIndex((dir) => p.includes(`/test/${dir}/`));
  return i === -1 ? ORDER.length : i;
};

class FerrySequencer extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path));
  }
}

module.exports = FerrySequencer;
