// Peak memory under sustained concurrent HTTP load (issue 35): each sample is a fresh server process
// served `httpMemoryCalls` tools/call `add` over the bench's keep-alive pool, the same concurrency
// for every side; the figure is the process's peak resident set (VmHWM) at the end.
import { Http2026Client, spawnHttpServer } from '../drivers/http-2026-client.js';
import { HttpSessionClient } from '../drivers/http-session-client.js';
import { memoryMbOf, pipelined } from '../drivers/stdio-child.js';
import type { Opened, Scenario } from '../harness.js';
import { SIDE_TITLES } from '../harness.js';
import { addText } from '../servers/bench-tools.js';
import type { Settings } from '../settings.js';
import type { Caller } from './http-sides.js';
import { ADD_FIXED, addArgs, checkSame, ok } from './tool-calls.js';

type Era = '2026' | 'session';

/** The server entries of each era's two sides: Armature's app.listenHttp serves both eras. */
const ENTRIES: Record<Era, { armature: string; sdk: string }> = {
  '2026': { armature: 'armature-http', sdk: 'sdk-http' },
  session: { armature: 'armature-http', sdk: 'sdk-http-sessions' },
};

function peakRssUnderLoad(settings: Settings, era: Era): Scenario {
  const connections = settings.httpConnections;
  const sides: Opened['sides'] = {};
  for (const name of ['armature', 'sdk'] as const) {
    sides[name] = async () => {
      const server = await spawnHttpServer(ENTRIES[era][name]);
      let client: Caller | undefined;
      try {
        client = era === 'session' ? await HttpSessionClient.open(server.url, connections) : new Http2026Client(server.url, connections);
        checkSame(
          `add(2, 3), ${era === 'session' ? 'in a 2025-11-25 session' : 'over HTTP 2026-07-28'}`,
          [[SIDE_TITLES[name], await client.callTool('add', ADD_FIXED)]],
          addText(2, 3),
        );
        const caller = client;
        await pipelined(settings.httpMemoryCalls, connections, (i) => caller.callTool('add', addArgs(i)).then(ok));
        return memoryMbOf(server.pid, 'VmHWM');
      } finally {
        await client?.close();
        await server.close();
      }
    };
  }
  const calls = settings.httpMemoryCalls.toLocaleString('en-US');
  return {
    id: `peak RSS http ${era}`,
    title:
      `peak RSS (VmHWM) of a fresh HTTP server over ${calls} tools/call add, ${connections} keep-alive connections at once, MB: ` +
      (era === 'session'
        ? "2025-11-25, one session; Armature app.listenHttp vs the SDK's NodeStreamableHTTPServerTransport, one per session"
        : '2026-07-28 stateless; Armature app.listenHttp vs the SDK createMcpHandler + toNodeHandler'),
    unit: 'MB',
    // Issue 35: under sustained concurrent load, no more than the SDK's peak plus 10%.
    targets: [{ anchor: 'sdk', goal: { kind: 'ratio-at-most', value: 1.1 } }],
    passes: settings.httpMemoryPasses,
    async open() {
      return { sides, close: async () => {} };
    },
  };
}

export function httpMemoryScenarios(settings: Settings): Scenario[] {
  return [peakRssUnderLoad(settings, '2026'), peakRssUnderLoad(settings, 'session')];
}
