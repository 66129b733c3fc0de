// The runtime lines: the same Armature servers (tsc's output: servers/armature-stdio.js and
// armature-http.js) run by Node, Bun and Deno, measured as the Node-only scenarios measure them.
// No goal: the ratios to Node are reported.
import { Http2026Client } from '../drivers/http-2026-client.js';
import type { Runtime } from '../drivers/runtime-command.js';
import { pipelined, StdioChild } from '../drivers/stdio-child.js';
import type { Opened, Scenario, Target } from '../harness.js';
import { SIDE_TITLES } from '../harness.js';
import { addText } from '../servers/bench-tools.js';
import type { Settings } from '../settings.js';
import { openHttpSides } from './http-sides.js';
import { ADD_FIXED, addArgs, checkSame, ok } from './tool-calls.js';

const RUNTIMES = { armature: 'node', bun: 'bun', deno: 'deno' } as const satisfies Record<string, Runtime>;
type RuntimeSide = keyof typeof RUNTIMES;
const SIDES = Object.keys(RUNTIMES) as RuntimeSide[];
const STDIO_ENTRY = 'servers/armature-stdio.js';
const TARGETS: readonly [Target, ...Target[]] = [
  { anchor: 'armature', subject: 'bun', goal: { kind: 'report' } },
  { anchor: 'armature', subject: 'deno', goal: { kind: 'report' } },
];

function coldStart(settings: Settings): Scenario {
  const sides: Opened['sides'] = {};
  for (const name of SIDES) {
    sides[name] = async () => {
      const { ms, child, listed } = await StdioChild.coldStart(SIDE_TITLES[name], STDIO_ENTRY, [], RUNTIMES[name]);
      await child.close();
      const names = (listed as { tools: { name: string }[] }).tools.map((t) => t.name);
      if (names.join() !== 'add,search') throw new Error(`runtime cold start: ${SIDE_TITLES[name]} listed ${names.join(', ')}`);
      return ms;
    };
  }
  return {
    id: 'runtime cold start',
    title:
      'runtime cold start with 2 tools: spawn of node / bun / deno running the same dist/servers/armature-stdio.js to its first tools/list, ms',
    unit: 'ms',
    targets: TARGETS,
    passes: settings.spawnPasses,
    async open() {
      return { sides, close: async () => {} };
    },
  };
}

function stdioAdd(settings: Settings): Scenario {
  return {
    id: 'runtime stdio add',
    title: `runtime stdio tools/call add: ${settings.stdioCalls.toLocaleString('en-US')} calls per sample, ${settings.inFlight} in flight, the same server on node / bun / deno`,
    unit: 'calls/s',
    targets: TARGETS,
    async open(): Promise<Opened> {
      const children = new Map(SIDES.map((name) => [name, StdioChild.spawn(SIDE_TITLES[name], STDIO_ENTRY, [], RUNTIMES[name])]));
      const close = async () => {
        await Promise.allSettled([...children.values()].map((child) => child.close()));
      };
      try {
        await Promise.all([...children.values()].map((child) => child.initialize()));
        const answers = await Promise.all(
          [...children].map(
            async ([name, child]) => [SIDE_TITLES[name], await child.request('tools/call', { name: 'add', arguments: ADD_FIXED })] as const,
          ),
        );
        checkSame('add(2, 3) on every runtime', answers, addText(2, 3));
        const run = (child: StdioChild, count: number) =>
          pipelined(count, settings.inFlight, (i) => child.request('tools/call', { name: 'add', arguments: addArgs(i) }).then(ok));
        for (const child of children.values()) await run(child, settings.warmupCalls);
        const sides: Opened['sides'] = {};
        for (const [name, child] of children) sides[name] = () => run(child, settings.stdioCalls);
        return { sides, close };
      } catch (error) {
        await close();
        throw error;
      }
    },
  };
}

function http2026Add(settings: Settings): Scenario {
  const connections = settings.httpConnections;
  return {
    id: 'runtime http 2026 add',
    title:
      `runtime HTTP 2026-07-28 stateless tools/call add: ${settings.httpCalls.toLocaleString('en-US')} calls per sample over ${connections} ` +
      'keep-alive connections, the same app.listenHttp server (node:http) on node / bun / deno',
    unit: 'calls/s',
    targets: TARGETS,
    open: () =>
      openHttpSides(
        settings,
        Object.fromEntries(SIDES.map((name) => [name, { entry: 'armature-http', runtime: RUNTIMES[name] }])),
        (url) => Promise.resolve(new Http2026Client(url, connections)),
        async (answers) => {
          checkSame('add(2, 3) over HTTP 2026-07-28 on every runtime', await answers('add', ADD_FIXED), addText(2, 3));
        },
      ),
  };
}

/** The runtime column: cold start, stdio and HTTP throughput of one server on Node, Bun and Deno. */
export function runtimeScenarios(settings: Settings): Scenario[] {
  return [coldStart(settings), stdioAdd(settings), http2026Add(settings)];
}
