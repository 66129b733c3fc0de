// Over HTTP, each server in its own process on 127.0.0.1, the raw clients' pools of keep-alive
// connections sending tools/call `add`: 2026-07-28 stateless (Armature, the SDK's createMcpHandler,
// the hand-written node:http loop) and 2025-11-25 in one session (Armature, the SDK's sessionful
// transport).
import { Http2026Client, spawnHttpServer } from '../drivers/http-2026-client.js';
import { HttpSessionClient } from '../drivers/http-session-client.js';
import { pipelined } from '../drivers/stdio-child.js';
import type { Opened, Scenario, SideName } from '../harness.js';
import { SIDE_TITLES } from '../harness.js';
import { addText, type SearchArgs, searchText } from '../servers/bench-tools.js';
import type { Settings } from '../settings.js';
import { ADD_FIXED, ADD_UNKNOWN, addArgs, checkRefused, checkSame, ok, SEARCH_FIXED, SEARCH_INVALID } from './tool-calls.js';

/** What both clients offer a scenario. */
interface Caller {
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
  close(): void | Promise<void>;
}

/** Starts `servers` (side -> entry of dist/servers), connects a client to each, and runs `check` before anything is timed. */
async function openHttp(
  settings: Settings,
  servers: Partial<Record<SideName, string>>,
  connect: (url: string) => Promise<Caller>,
  check: (
    answers: (name: string, args: Record<string, unknown>, only?: readonly SideName[]) => Promise<[string, unknown][]>,
  ) => Promise<void>,
): Promise<Opened> {
  const names = Object.keys(servers) as SideName[];
  const started = await Promise.allSettled(names.map((name) => spawnHttpServer(servers[name] as string)));
  const running = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const clients = new Map<SideName, Caller>();
  const close = async () => {
    await Promise.allSettled([...clients.values()].map((client) => client.close()));
    await Promise.allSettled(running.map((server) => server.close()));
  };
  try {
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    for (const [i, name] of names.entries()) clients.set(name, await connect(running[i]?.url as string));
    await check(async (tool, args, only = names) => {
      const answers: [string, unknown][] = [];
      for (const name of only) answers.push([SIDE_TITLES[name], await (clients.get(name) as Caller).callTool(tool, args)]);
      return answers;
    });
    const run = (client: Caller, count: number) =>
      pipelined(count, settings.httpConnections, (i) => client.callTool('add', addArgs(i)).then(ok));
    for (const client of clients.values()) await run(client, Math.min(settings.warmupCalls, settings.httpCalls));
    const sides: Opened['sides'] = {};
    for (const [name, client] of clients) sides[name] = () => run(client, settings.httpCalls);
    return { sides, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function http2026(settings: Settings): Scenario {
  const connections = settings.httpConnections;
  return {
    id: 'http 2026 add',
    title:
      `HTTP 2026-07-28 stateless tools/call add: ${settings.httpCalls.toLocaleString('en-US')} calls per sample over ${connections} ` +
      'keep-alive connections; Armature app.listenHttp vs the SDK createMcpHandler + toNodeHandler on node:http vs a hand-written node:http loop',
    unit: 'calls/s',
    // Issue 11: at least 3x the SDK; issue 21: at least 0.5x of the hand-written node:http loop.
    targets: [
      { anchor: 'sdk', goal: { kind: 'ratio-at-least', value: 3 } },
      { anchor: 'raw', goal: { kind: 'ratio-at-least', value: 0.5 } },
    ],
    open: () =>
      openHttp(
        settings,
        { armature: 'armature-http', sdk: 'sdk-http', raw: 'raw-loop-http' },
        (url) => Promise.resolve(new Http2026Client(url, connections)),
        async (answers) => {
          checkSame('add(2, 3) over HTTP 2026-07-28', await answers('add', ADD_FIXED), addText(2, 3));
          checkSame('search over HTTP 2026-07-28', await answers('search', SEARCH_FIXED), searchText(SEARCH_FIXED as SearchArgs));
          checkRefused('search with a one-letter query over HTTP 2026-07-28', await answers('search', SEARCH_INVALID));
          checkRefused('add with an unknown argument over HTTP 2026-07-28', await answers('add', ADD_UNKNOWN, ['armature', 'raw']));
        },
      ),
  };
}

function httpSession(settings: Settings): Scenario {
  const connections = settings.httpConnections;
  return {
    id: 'http session add',
    title:
      `HTTP 2025-11-25 sessionful tools/call add, one session per side: ${settings.httpCalls.toLocaleString('en-US')} calls per sample over ` +
      `${connections} keep-alive connections; Armature app.listenHttp vs the SDK's NodeStreamableHTTPServerTransport, one per session`,
    unit: 'calls/s',
    targets: [{ anchor: 'sdk', goal: { kind: 'ratio-at-least', value: 3 } }],
    open: () =>
      openHttp(
        settings,
        { armature: 'armature-http', sdk: 'sdk-http-sessions' },
        (url) => HttpSessionClient.open(url, connections),
        async (answers) => {
          checkSame('add(2, 3) in a 2025-11-25 session', await answers('add', ADD_FIXED), addText(2, 3));
          checkSame('search in a 2025-11-25 session', await answers('search', SEARCH_FIXED), searchText(SEARCH_FIXED as SearchArgs));
          checkRefused('search with a one-letter query in a 2025-11-25 session', await answers('search', SEARCH_INVALID));
        },
      ),
  };
}

export function httpScenarios(settings: Settings): Scenario[] {
  return [http2026(settings), httpSession(settings)];
}
