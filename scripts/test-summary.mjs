// Prints the plain closing line CI reads ("N passed, N failed, N skipped") from jest's JSON report (--json).
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.tmp/jest-report.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.log(`tests: 0 passed, 1 failed (no report at ${file}: ${err.message})`);
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
// A file that fails to load has no failed tests of its own: count it as one failure.
const failed = (report.numFailedTests ?? 0) || (report.numFailedTestSuites ?? 0);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(report.success && passed > 0 ? 0 : 1);
