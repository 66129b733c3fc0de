// Armature against the official SDK v2 (and the SDK v1 and hand-written JSON-RPC loops where
// cheap) on the scenarios of issues 11 and 21, in one run: every side sampled once per pass, several
// passes, medians, ratios, each goal with PASS/FAIL.
// Usage: node dist/bench.js [--quick] [--only=<part of a scenario id>] [--passes=N] [--write-docs[=file]]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { exitOnSignals } from './drivers/exit-on-signals.js';
import { type Row, runScenario } from './harness.js';
import { consoleTable, markdownTable, samplesLine, summaryLine, svgChart, writeBetweenMarkers } from './report.js';
import { httpScenarios } from './scenarios/http.js';
import { httpMemoryScenarios } from './scenarios/http-memory.js';
import { inMemoryScenarios } from './scenarios/in-memory.js';
import { redisStateScenarios } from './scenarios/redis-state.js';
import { runtimeScenarios } from './scenarios/runtimes.js';
import { processScenarios, stdioCallScenarios } from './scenarios/stdio.js';
import { telemetryScenarios } from './scenarios/telemetry.js';
import { FULL, QUICK, type Settings } from './settings.js';

const DOCS_PAGE = fileURLToPath(new URL('../../../docs/performance.md', import.meta.url));

interface Args {
  settings: Settings;
  only?: string;
  writeDocs?: string;
}

function parseArgs(argv: readonly string[]): Args {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log('usage: node dist/bench.js [--quick] [--only=<part of a scenario id>] [--passes=N] [--write-docs[=file]]');
    process.exit(0);
  }
  const value = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const settings = { ...(argv.includes('--quick') ? QUICK : FULL) };
  const passes = value('passes');
  if (passes !== undefined) {
    settings.passes = Number(passes);
    if (!Number.isInteger(settings.passes) || settings.passes < 1) throw new Error(`--passes takes a whole number >= 1, got ${passes}`);
  }
  const writeDocs = argv.includes('--write-docs') ? DOCS_PAGE : value('write-docs');
  return { settings, only: value('only'), writeDocs };
}

function version(pkg: string): string {
  try {
    const file = new URL(`../node_modules/${pkg}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'packages/core/src', 'apps/bench/src'], { encoding: 'utf8' }).trim();
    return dirty ? `${head} + local changes` : head;
  } catch {
    return 'unknown';
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  exitOnSignals();
  const { settings, only, writeDocs } = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const cpu = cpus();
  const header = [
    `Armature vs the official SDK, ${settings.quick ? 'quick run (a smoke test: figures indicative only)' : 'full run'}, ${settings.passes} passes, medians`,
    `node ${process.version}, ${cpu.length} x ${cpu[0]?.model.trim() ?? 'cpu'}; repository ${commit()}; ` +
      `@modelcontextprotocol/server ${version('@modelcontextprotocol/server')}, @modelcontextprotocol/sdk ${version('@modelcontextprotocol/sdk')}, zod ${version('zod')}`,
    `load average at start: ${load()}`,
  ];
  for (const line of header) console.log(line);

  const redis = redisStateScenarios(settings);
  const scenarios = [
    ...stdioCallScenarios(settings),
    ...httpScenarios(settings),
    ...redis.scenarios,
    ...inMemoryScenarios(settings),
    ...telemetryScenarios(settings),
    ...processScenarios(settings),
    ...httpMemoryScenarios(settings),
    ...runtimeScenarios(settings),
  ];
  const chosen = scenarios.filter((s) => !only || s.id.includes(only));
  if (chosen.length === 0) throw new Error(`--only=${only} matches no scenario; ids: ${scenarios.map((s) => s.id).join(', ')}`);

  const rows: Row[] = [];
  for (const scenario of chosen) {
    console.log(`\n== ${scenario.title} ==`);
    const row = await runScenario(scenario, settings.passes);
    console.log(samplesLine(row));
    console.log(summaryLine(row));
    rows.push(row);
  }
  const footer = `load average at end: ${load()}; total time ${((performance.now() - started) / 1000).toFixed(1)} s`;

  console.log('\n== results ==');
  console.log(consoleTable(rows));
  if (redis.skipped) console.log(redis.skipped);
  console.log('\n== summary ==');
  for (const row of rows) console.log(summaryLine(row));
  if (redis.skipped) console.log(redis.skipped);
  console.log(footer);

  if (writeDocs) {
    const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
    writeBetweenMarkers(
      writeDocs,
      [`\`\`\`console\n${[...header, footer, `measured ${date} UTC`].join('\n')}\n\`\`\``, markdownTable(rows), svgChart(rows)].join(
        '\n\n',
      ),
    );
    console.log(`wrote the table and the chart into ${writeDocs}`);
  }
  const fatal = rows.flatMap((row) => row.checks.filter((c) => c.fatal && !c.pass));
  if (fatal.length > 0) {
    console.error(`FAILED: ${fatal.map((c) => c.text).join('; ')}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
