// Prints the slowest test files at the end of a run: where CI's wall time goes.
class SlowestSuites {
  onRunComplete(_contexts, results) {
    const rows = results.testResults
      .map((r) => ({
        file: r.testFilePath.replace(`${process.cwd()}/`, ''),
        seconds: (r.perfStats.end - r.perfStats.start) / 1000,
      }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, 15);
    if (rows.length === 0) return;
    const total = results.testResults.reduce((s, r) => s + (r.perfStats.end - r.perfStats.start) / 1000, 0);
    process.stderr.write(`\nslowest test files (of ${total.toFixed(0)} s in all):\n`);
    for (const { file, seconds } of rows) process.stderr.write(`  ${seconds.toFixed(1).padStart(7)} s  ${file}\n`);
  }
}
module.exports = SlowestSuites;
