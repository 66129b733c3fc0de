// Scenarios over stdio: real child processes, one per side, driven by the raw line client.
import { setTimeout as sleep } from 'node:timers/promises';
import { pipelined, StdioChild } from '../drivers/stdio-child.js';
import type { Check, Opened, Scenario, SideName } from '../harness.js';
import { median, SIDE_TITLES } from '../harness.js';
import type { SearchArgs } from '../servers/bench-tools.js';
import { addText, searchText } from '../servers/bench-tools.js';
import type { Settings } from '../settings.js';
import { ADD_FIXED, ADD_UNKNOWN, addArgs, checkRefused, checkSame, ok, SEARCH_FIXED, SEARCH_INVALID, searchArgs } from './tool-calls.js';

/**
 * The sides that have a stdio server of their own (the in-memory-state side exists only for the
 * Redis lines; Bun and Deno run Armature's; the telemetry-off side only measures the
 * instrumentation's cost, in memory; the direct side is the anchor of the proxy line, over HTTP).
 */
type StdioSide = Exclude<SideName, 'memory' | 'bun' | 'deno' | 'untraced' | 'direct'>;

export const STDIO_ENTRIES: Record<StdioSide, string> = {
  armature: 'servers/armature-stdio.js',
  // `armature build dist/servers/armature-stdio.js --out dist/built` (the bench's build script).
  bundled: 'built/armature-stdio.mjs',
  sdk: 'servers/sdk-stdio.js',
  // `armature build dist/servers/sdk-stdio.js --out dist/built-sdk` (the bench's build script).
  sdkBundled: 'built-sdk/sdk-stdio.mjs',
  sdkV1: 'servers/sdk-v1-stdio.js',
  raw: 'servers/raw-loop-stdio.js',
};
/** `--extra 498`: `add`, `search` and 498 copies of `add`, 500 tools. */
const EXTRA_FOR_500 = ['--extra', '498'];

async function spawnAll(names: readonly StdioSide[], args: readonly string[] = []): Promise<Map<SideName, StdioChild>> {
  const children = new Map<SideName, StdioChild>();
  for (const name of names) children.set(name, StdioChild.spawn(SIDE_TITLES[name], STDIO_ENTRIES[name], args));
  try {
    await Promise.all([...children.values()].map((child) => child.initialize()));
  } catch (error) {
    await closeAll(children);
    throw error;
  }
  return children;
}

async function closeAll(children: Map<SideName, StdioChild>): Promise<void> {
  await Promise.allSettled([...children.values()].map((child) => child.close()));
}

async function answersOf(children: Map<SideName, StdioChild>, method: string, params: Record<string, unknown>) {
  return Promise.all([...children].map(async ([name, child]) => [SIDE_TITLES[name], await child.request(method, params)] as const));
}

const ALL: readonly StdioSide[] = ['armature', 'sdk', 'sdkV1', 'raw'];
/** The start-up scenarios also run the bundled server: their goals judge it, as a deployed server starts. */
const STARTING: readonly StdioSide[] = ['armature', 'bundled', 'sdk', 'sdkBundled', 'sdkV1', 'raw'];

function stdioThroughput(settings: Settings, tool: 'add' | 'search'): Scenario {
  const args = tool === 'add' ? addArgs : searchArgs;
  return {
    id: `stdio ${tool}`,
    title:
      `stdio tools/call ${tool}: ${settings.stdioCalls.toLocaleString('en-US')} calls per sample, ${settings.inFlight} in flight, ` +
      'one child process per side, raw JSON-RPC line client',
    unit: 'calls/s',
    // Issue 21: at least 2x the SDK; issue 35: at least 0.8x of the hand-written loop (the limit)
    // for `add`, 0.7x for `search`, whose nested DTO the loop checks by hand.
    targets: [
      { anchor: 'sdk', goal: { kind: 'ratio-at-least', value: 2 } },
      { anchor: 'raw', goal: { kind: 'ratio-at-least', value: tool === 'add' ? 0.8 : 0.7 } },
    ],
    async open(): Promise<Opened> {
      const children = await spawnAll(ALL);
      try {
        if (tool === 'add') {
          checkSame('add(2, 3)', await answersOf(children, 'tools/call', { name: 'add', arguments: ADD_FIXED }), addText(2, 3));
          // Armature's schemas say `additionalProperties: false`, and so do the loop's: both refuse. The SDKs' zod objects drop the key.
          const strict = new Map([...children].filter(([name]) => name === 'armature' || name === 'raw'));
          checkRefused('add with an unknown argument', await answersOf(strict, 'tools/call', { name: 'add', arguments: ADD_UNKNOWN }));
        } else {
          const expected = searchText(SEARCH_FIXED as SearchArgs);
          checkSame('search', await answersOf(children, 'tools/call', { name: 'search', arguments: SEARCH_FIXED }), expected);
          checkRefused(
            'search with a one-letter query',
            await answersOf(children, 'tools/call', { name: 'search', arguments: SEARCH_INVALID }),
          );
        }
        const run = (child: StdioChild, count: number) =>
          pipelined(count, settings.inFlight, (i) => child.request('tools/call', { name: tool, arguments: args(i) }).then(ok));
        for (const child of children.values()) await run(child, settings.warmupCalls);
        const sides: Opened['sides'] = {};
        for (const [name, child] of children) sides[name] = () => run(child, settings.stdioCalls);
        return { sides, close: () => closeAll(children) };
      } catch (error) {
        await closeAll(children);
        throw error;
      }
    },
  };
}

interface ListResult {
  tools: { name: string }[];
  nextCursor?: string;
}

/** Reads every page; returns the tools in order. */
async function walkToolsList(child: StdioChild): Promise<ListResult['tools']> {
  const tools: ListResult['tools'] = [];
  let cursor: string | undefined;
  do {
    const page = (await child.request('tools/list', cursor === undefined ? {} : { cursor })) as ListResult;
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

function toolsListAllPages(settings: Settings): Scenario {
  return {
    id: 'tools/list 500',
    title: `tools/list of 500 tools over stdio, every page read (cursor loop), ${settings.listWalks} walks per sample, ms per walk`,
    unit: 'ms',
    targets: [{ anchor: 'raw', goal: { kind: 'ratio-at-most', value: 1.1 } }],
    async open(): Promise<Opened> {
      const children = await spawnAll(['armature', 'sdk', 'raw'], EXTRA_FOR_500);
      try {
        const listed: [string, string[]][] = [];
        const full = new Map<SideName, ListResult['tools']>();
        for (const [name, child] of children) {
          const tools = await walkToolsList(child);
          const names = tools.map((tool) => tool.name);
          if (names.length !== 500 || new Set(names).size !== 500) {
            throw new Error(
              `tools/list: ${SIDE_TITLES[name]} listed ${names.length} tools (${new Set(names).size} distinct), expected 500`,
            );
          }
          listed.push([SIDE_TITLES[name], names.sort()]);
          full.set(name, tools);
        }
        checkSame('the names tools/list gives, every page read', listed);
        // The loop serves what Armature serves, schema for schema (`additionalProperties: false` included), in the same order.
        checkSame('the tools Armature and the loop list, every page read', [
          [SIDE_TITLES.armature, full.get('armature')],
          [SIDE_TITLES.raw, full.get('raw')],
        ]);
        const sides: Opened['sides'] = {};
        for (const [name, child] of children) {
          for (let i = 0; i < settings.listWarmupWalks; i++) await walkToolsList(child);
          sides[name] = async () => {
            const started = performance.now();
            for (let i = 0; i < settings.listWalks; i++) await walkToolsList(child);
            return (performance.now() - started) / settings.listWalks;
          };
        }
        return { sides, close: () => closeAll(children) };
      } catch (error) {
        await closeAll(children);
        throw error;
      }
    },
  };
}

function coldStart(settings: Settings, tools: 2 | 500): Scenario {
  const args = tools === 500 ? EXTRA_FOR_500 : [];
  const sides: Opened['sides'] = {};
  for (const name of STARTING) {
    sides[name] = async () => {
      const { ms, child, listed } = await StdioChild.coldStart(SIDE_TITLES[name], STDIO_ENTRIES[name], args);
      await child.close();
      // The same tools from every side: add and search first; Armature and the loop page by 100, the SDKs list all.
      const names = (listed as ListResult).tools.map((t) => t.name);
      const expected = name === 'sdk' || name === 'sdkBundled' || name === 'sdkV1' ? tools : Math.min(tools, 100);
      if (names[0] !== 'add' || names[1] !== 'search' || names.length !== expected) {
        throw new Error(`cold start: ${SIDE_TITLES[name]} listed ${names.length} tools starting ${names.slice(0, 2).join(', ')}`);
      }
      return ms;
    };
  }
  return {
    id: `cold start ${tools}`,
    title: `cold start with ${tools} tools: spawn of a fresh process to the answer of its first tools/list (initialize first), ms, judged on the median of the per-pass ratios`,
    unit: 'ms',
    // Issue 21: as tsc compiled it (`node dist/main.js`) at most 1.3x the SDK. Bundled by `armature
    // build` and run by plain node, as a generated project's `npm start` runs it: issue 11 asked
    // 0.8x; issue 31 asks 0.7x of the 2-tool start.
    targets: [
      { anchor: 'sdk', goal: { kind: 'ratio-at-most', value: 1.3 } },
      { anchor: 'sdk', subject: 'bundled', goal: { kind: 'ratio-at-most', value: tools === 2 ? 0.7 : 0.8 } },
      // Not judged: the floor of the line above, the SDK's own server bundled the same way.
      { anchor: 'sdk', subject: 'sdkBundled', goal: { kind: 'report' } },
    ],
    // A start's wall time is mostly waiting for a core when the machine is shared: the same server
    // took 306 to 927 ms within one series at load 4 to 6. Judged on the ratio of the medians, 5
    // unpaired samples a side put the bundle anywhere from 0.78x to 0.95x of the SDK while its
    // CPU time stayed at 0.78x to 0.82x; each pass's own ratio (both sides started within the
    // same second) follows the CPU figure.
    paired: true,
    passes: settings.spawnPasses,
    async open() {
      return { sides, close: async () => {} };
    },
  };
}

function idleRss(settings: Settings): Scenario {
  const sides: Opened['sides'] = {};
  for (const name of STARTING) {
    sides[name] = async () => {
      const child = StdioChild.spawn(SIDE_TITLES[name], STDIO_ENTRIES[name]);
      try {
        await child.initialize();
        await child.request('ping', {});
        await sleep(200);
        return child.rssMb();
      } finally {
        await child.close();
      }
    };
  }
  return {
    id: 'idle RSS',
    title: 'idle RSS: a fresh stdio process after initialize (and a ping), 200 ms later, MB',
    unit: 'MB',
    // Issue 21: as tsc compiled it, at most 15 MB over the SDK; issue 11: bundled, at most 10 MB over.
    targets: [
      { anchor: 'sdk', goal: { kind: 'plus-at-most', value: 15 } },
      { anchor: 'sdk', subject: 'bundled', goal: { kind: 'plus-at-most', value: 10 } },
    ],
    passes: settings.spawnPasses,
    async open() {
      return { sides, close: async () => {} };
    },
  };
}

/** Issue 35: after warm-up, every RSS reading within this many MB of their median, either way. */
const FLAT_MB = 10;
/** RSS is read after each of this many equal parts of the calls. */
const READINGS = 40;
/** The first readings, the warm-up, are not judged for flatness: the first fifth of the calls. */
const WARM_UP = READINGS / 5;

/** How far the readings after warm-up stray from their median, below and above (MB). */
function spread(readings: readonly number[]): { below: number; above: number } {
  const judged = readings.slice(WARM_UP);
  const mid = median(judged);
  return { below: mid - Math.min(...judged), above: Math.max(...judged) - mid };
}

const fmtSpread = ({ below, above }: { below: number; above: number }) => `-${below.toFixed(1)}/+${above.toFixed(1)} MB`;

/**
 * RSS is read after each fortieth of the calls. One reading lands wherever V8's garbage collection
 * happens to be, so the line's figure is the median of the readings over the last 40% of the calls,
 * judged against the SDK's; "flat" judges every reading after the first fifth of the calls (the
 * warm-up) against their median: a leak or garbage piling up between mark-compacts strays from it.
 */
function rssAfterCalls(settings: Settings): Scenario {
  const spreads = new Map<SideName, { below: number; above: number }>();
  const sides: Opened['sides'] = {};
  for (const name of ['armature', 'sdk'] as const) {
    sides[name] = async () => {
      const child = StdioChild.spawn(SIDE_TITLES[name], STDIO_ENTRIES[name]);
      try {
        await child.initialize();
        const readings: number[] = [];
        const perReading = settings.memoryCalls / READINGS;
        for (let reading = 0; reading < READINGS; reading++) {
          const from = reading * perReading;
          await pipelined(perReading, settings.inFlight, (i) =>
            child.request('tools/call', { name: 'add', arguments: addArgs(from + i) }).then(ok),
          );
          readings.push(child.rssMb());
        }
        spreads.set(name, spread(readings));
        return median(readings.slice((READINGS * 3) / 5));
      } finally {
        await child.close();
      }
    };
  }
  const calls = settings.memoryCalls.toLocaleString('en-US');
  return {
    id: `RSS after ${calls} calls`,
    title: `RSS of a stdio process over ${calls} tools/call add (${settings.inFlight} in flight), read ${READINGS} times, median of the readings over the last 40% of the calls, MB; flat = every reading after the first fifth within ${FLAT_MB} MB of their median`,
    unit: 'MB',
    targets: [{ anchor: 'sdk', goal: { kind: 'plus-at-most', value: 10 } }],
    passes: 1,
    async open() {
      return {
        sides,
        async after(): Promise<Check[]> {
          const armature = spreads.get('armature') as { below: number; above: number };
          const sdk = spreads.get('sdk') as { below: number; above: number };
          return [
            {
              text: `flat: Armature ${fmtSpread(armature)} of its median after warm-up (SDK v2 ${fmtSpread(sdk)}; goal within ${FLAT_MB} MB)`,
              pass: armature.below <= FLAT_MB && armature.above <= FLAT_MB,
            },
          ];
        },
        close: async () => {},
      };
    },
  };
}

export function stdioCallScenarios(settings: Settings): Scenario[] {
  return [stdioThroughput(settings, 'add'), stdioThroughput(settings, 'search')];
}

/** Scenarios of whole processes: start-up, listing, memory. */
export function processScenarios(settings: Settings): Scenario[] {
  return [coldStart(settings, 2), coldStart(settings, 500), toolsListAllPages(settings), idleRss(settings), rssAfterCalls(settings)];
}
