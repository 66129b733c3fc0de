#!/usr/bin/env node
// Runs every vitest project once and prints the plain closing line CI reads:
// `N passed, N failed` (vitest's own summary is not read). Fails when no test ran.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const report = join(mkdtempSync(join(tmpdir(), 'armature-tests-')), 'report.json');
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const run = spawnSync(
  process.execPath,
  [
    vitest,
    'run',
    '--config',
    join(root, '.ci', 'vitest.config.mjs'),
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR } },
);

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const result = JSON.parse(readFileSync(report, 'utf8'));
  passed = result.numPassedTests ?? 0;
  // A failing file counts once more only when none of its tests failed (it did not load, or a hook
  // failed): a file whose test failed is that test's failure, not a second one.
  const brokenFiles = (result.testResults ?? []).filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length;
  failed = (result.numFailedTests ?? 0) + brokenFiles;
  skipped = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0);
} else {
  failed = 1;
  console.error('run-tests: vitest wrote no report');
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed === 0) console.error('run-tests: no test ran');
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
