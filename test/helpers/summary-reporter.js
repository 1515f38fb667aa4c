// Jest reporter that ends the run with one plain line, `tests: N passed, N failed`
// (plus `, N skipped` when any), the closing line CI tooling reads in any language.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed`;
    process.stdout.write(`${line}${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
  }
}

module.exports = SummaryReporter;
