// One Armature instance with the Redis state (`@armature/redis`) against the same app with the
// in-memory state, each in its own process on 127.0.0.1, in the same interleaved run: 2026-07-28
// stateless tools/call and 2025-11-25 sessionful tools/call over HTTP. Each scenario starts its own
// redis-server (no persistence: no disk in the figures) and stops it. Sessions have a goal (issue 21:
// at least 0.85x of in-memory); the stateless line's ratio is reported.
import { RedisServer } from '@armature/test-redis';
import { Http2026Client } from '../drivers/http-2026-client.js';
import { HttpSessionClient } from '../drivers/http-session-client.js';
import type { Goal, Opened, Scenario } from '../harness.js';
import { addText } from '../servers/bench-tools.js';
import type { Settings } from '../settings.js';
import { type Caller, openHttpSides } from './http-sides.js';
import { ADD_FIXED, checkSame } from './tool-calls.js';

export const REDIS_SKIPPED =
  'redis state lines: skipped, redis-server is not installed (apt-get install -y redis-server, or sh .ci/install-redis.sh)';

/** The Redis state scenarios, or none and the line saying why when redis-server is missing. */
export function redisStateScenarios(settings: Settings): { scenarios: Scenario[]; skipped?: string } {
  if (!RedisServer.installed()) return { scenarios: [], skipped: REDIS_SKIPPED };
  const connections = settings.httpConnections;
  const calls = `${settings.httpCalls.toLocaleString('en-US')} calls per sample over ${connections} keep-alive connections`;
  return {
    scenarios: [
      stateScenario(settings, {
        id: 'redis 2026 add',
        title: `HTTP 2026-07-28 stateless tools/call add, Redis state vs in-memory state (same app, one instance each): ${calls}`,
        connect: (url) => Promise.resolve(new Http2026Client(url, connections)),
        goal: { kind: 'report' },
      }),
      stateScenario(settings, {
        id: 'redis session add',
        title: `HTTP 2025-11-25 sessionful tools/call add (one session per side), Redis state vs in-memory state: ${calls}`,
        connect: (url) => HttpSessionClient.open(url, connections),
        goal: { kind: 'ratio-at-least', value: 0.85 },
      }),
    ],
  };
}

function stateScenario(
  settings: Settings,
  line: { id: string; title: string; connect: (url: string) => Promise<Caller>; goal: Goal },
): Scenario {
  return {
    id: line.id,
    title: line.title,
    unit: 'calls/s',
    targets: [{ anchor: 'memory', goal: line.goal }],
    async open(): Promise<Opened> {
      const redis = await RedisServer.start({ durable: false });
      try {
        const opened = await openHttpSides(
          settings,
          { armature: { entry: 'armature-http-redis', env: { REDIS_URL: redis.url } }, memory: { entry: 'armature-http' } },
          line.connect,
          async (answers) => checkSame(`add(2, 3), ${line.id}`, await answers('add', ADD_FIXED), addText(2, 3)),
        );
        return {
          ...opened,
          async close() {
            await opened.close();
            await redis.dispose();
          },
        };
      } catch (error) {
        await redis.dispose();
        throw error;
      }
    },
  };
}
