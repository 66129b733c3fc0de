// HTTP 2026-07-28 stateless: each server in its own process on 127.0.0.1, the raw client's pool
// of keep-alive connections sending tools/call `add`.
import { Http2026Client, spawnHttpServer } from '../drivers/http-2026-client.js';
import { pipelined } from '../drivers/stdio-child.js';
import type { Opened, Scenario } from '../harness.js';
import { addText } from '../servers/bench-tools.js';
import type { Settings } from '../settings.js';
import { ADD_FIXED, addArgs, checkSame, ok } from './tool-calls.js';

export function httpScenario(settings: Settings): Scenario {
  const connections = settings.httpConnections;
  return {
    id: 'http 2026 add',
    title:
      `HTTP 2026-07-28 stateless tools/call add: ${settings.httpCalls.toLocaleString('en-US')} calls per sample over ${connections} ` +
      'keep-alive connections; Armature app.listenHttp vs the SDK createMcpHandler + toNodeHandler on node:http',
    unit: 'calls/s',
    anchor: 'sdk',
    goal: { kind: 'ratio-at-least', value: 3 },
    async open(): Promise<Opened> {
      const servers = await Promise.all([spawnHttpServer('armature-http'), spawnHttpServer('sdk-http')]);
      const [armature, sdk] = servers.map((server) => new Http2026Client(server.url, connections)) as [Http2026Client, Http2026Client];
      const close = async () => {
        armature.close();
        sdk.close();
        await Promise.allSettled(servers.map((server) => server.close()));
      };
      try {
        const answers = [
          ['Armature', await armature.callTool('add', ADD_FIXED)],
          ['SDK v2', await sdk.callTool('add', ADD_FIXED)],
        ] as const;
        checkSame('add(2, 3) over HTTP 2026-07-28', answers, addText(2, 3));
        const run = (client: Http2026Client, count: number) =>
          pipelined(count, connections, (i) => client.callTool('add', addArgs(i)).then(ok));
        for (const client of [armature, sdk]) await run(client, Math.min(settings.warmupCalls, settings.httpCalls));
        return { sides: { armature: () => run(armature, settings.httpCalls), sdk: () => run(sdk, settings.httpCalls) }, close };
      } catch (error) {
        await close();
        throw error;
      }
    },
  };
}
