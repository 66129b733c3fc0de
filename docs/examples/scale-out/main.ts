// One instance of a scaled-out server: run as many as you like against the same Redis and key.
import { createMcpApp, McpServer, Tool } from '@armature/core';
import { redisState } from '@armature/redis';

@McpServer({ name: 'notes', version: '1.0.0' })
export class NotesServer {
  @Tool({ description: 'Which instance answered' })
  whoami() {
    return process.env.HOSTNAME ?? `pid ${process.pid}`;
  }
}

const key = process.env.MCP_REQUEST_STATE_KEY;
const app = createMcpApp(NotesServer, {
  state: redisState({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }),
  ...(key ? { requestStateKey: key } : {}), // without it, start-up fails with ARM121
}).enableShutdownHooks();
const { url } = await app.listenHttp({
  host: process.env.HOST ?? '127.0.0.1',
  port: Number(process.env.PORT ?? 3000),
  allowedHosts: (process.env.ALLOWED_HOSTS ?? 'localhost,127.0.0.1').split(','),
});
console.error(`notes: MCP endpoint at ${url}`);
