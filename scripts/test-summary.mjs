// Prints the plain closing line CI reads ("N passed, N failed, N skipped") from jest's JSON reports (--json), one
// per lane of `make test`, added up. A missing or unreadable report is a failure: its lane did not finish.
import { readFileSync } from 'node:fs';

const files = process.argv.length > 2 ? process.argv.slice(2) : ['.tmp/jest-report.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
let success = true;
for (const file of files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.log(`no jest report at ${file} (${err.message}): its lane did not finish`);
    failed += 1;
    success = false;
    continue;
  }
  // Each lane's wall time and its slowest files: `make test` lasts as long as its longer lane.
  const results = report.testResults ?? [];
  if (results.length > 0) {
    const start = Math.min(...results.map((r) => r.startTime));
    const end = Math.max(...results.map((r) => r.endTime));
    const slowest = [...results]
      .sort((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime))
      .slice(0, 5)
      .map((r) => `${r.name.replace(`${process.cwd()}/`, '')} ${((r.endTime - r.startTime) / 1000).toFixed(0)} s`);
    console.log(`${file}: ${results.length} files in ${((end - start) / 1000).toFixed(0)} s; slowest: ${slowest.join(', ')}`);
  }
  passed += report.numPassedTests ?? 0;
  // A file that fails to load has no failed tests of its own: each such file counts as one failure.
  const unloaded = (report.testResults ?? []).filter((r) => r.status === 'failed' && (r.assertionResults ?? []).length === 0);
  failed += (report.numFailedTests ?? 0) + unloaded.length;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  success &&= report.success === true;
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(success && failed === 0 && passed > 0 ? 0 : 1);
