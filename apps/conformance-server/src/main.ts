import { fileURLToPath } from 'node:url';
import { createMcpApp, remoteServer } from '@armature/core';
import { redisState } from '@armature/redis';
import { type ConformanceApp, type ConformanceAppOptions, createConformanceApp } from './app.js';

const USAGE = `Usage: node dist/main.js [--stdio]

  (default)  serve Streamable HTTP on http://127.0.0.1:$PORT/mcp (PORT defaults to 3000, 0 picks a
             free one), with resumable SSE streams (in-memory event store) for SEP-1699
  --stdio    serve MCP over stdin/stdout instead

Environment (HTTP):
  PORT                        the port (see above)
  ARMATURE_REDIS_URL          keep sessions, resumable events and change notifications on this Redis
                              (e.g. redis://127.0.0.1:6379), so that several instances behind one load
                              balancer serve one endpoint; needs MCP_REQUEST_STATE_KEY
  ARMATURE_REDIS_CLUSTER      the same on a Redis Cluster: some of its nodes as host:port,host:port
  MCP_REQUEST_STATE_KEY       the requestStateKey, the same on every instance
  CONFORMANCE_COMPOSED=1      serve the composed variant: the inventory plus a part mounted under
                              "extra" with its own guard and interceptor (src/composed.server.ts)
  CONFORMANCE_PROXIED=1       serve the gateway variant: an app whose only part is this server run
                              as a child process over stdio (remoteServer), under its own names
`;

/** The `retry` hint on resumable SSE streams: how long a client waits before it resumes. */
const RETRY_INTERVAL_MS = 500;

function parsePort(value: string | undefined): number {
  const port = Number(value === undefined || value === '' ? 3000 : value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be an integer from 0 to 65535, got "${value}"`);
  return port;
}

/** Whether the server runs on a Redis (ARMATURE_REDIS_URL) or a Redis Cluster (ARMATURE_REDIS_CLUSTER). */
const SCALED_OUT = process.env.ARMATURE_REDIS_URL !== undefined || process.env.ARMATURE_REDIS_CLUSTER !== undefined;

/** The Redis state when scaled out (a missing key is the app's own start-up error). */
function scaleOutFromEnv(env: NodeJS.ProcessEnv): ConformanceAppOptions['scaleOut'] {
  if (!SCALED_OUT) return undefined;
  const cluster = env.ARMATURE_REDIS_CLUSTER?.split(',').map((node) => `redis://${node}`);
  return { state: redisState(cluster ? { cluster } : { url: env.ARMATURE_REDIS_URL }), requestStateKey: env.MCP_REQUEST_STATE_KEY };
}

/**
 * The gateway variant: every request the suite makes goes through an app that serves this very
 * server, started as a child process over stdio, as a remote server under its own names.
 */
function createGatewayApp(): ConformanceApp {
  const self = fileURLToPath(import.meta.url);
  const app = createMcpApp(remoteServer({ command: process.execPath, args: [self, '--stdio'] }));
  return { app, close: () => app.close() };
}

async function main(args: readonly string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stderr.write(USAGE);
    return;
  }
  const unknown = args.filter((arg) => arg !== '--stdio');
  if (unknown.length > 0) throw new Error(`unexpected arguments: ${unknown.join(' ')}\n\n${USAGE}`);

  const server =
    process.env.CONFORMANCE_PROXIED === '1' && !args.includes('--stdio')
      ? createGatewayApp()
      : createConformanceApp({ scaleOut: scaleOutFromEnv(process.env), composed: process.env.CONFORMANCE_COMPOSED === '1' });
  if (args.includes('--stdio')) {
    // stdout belongs to the protocol: anything for humans goes to stderr.
    server.app.listenStdio();
    process.stderr.write('armature-conformance-server: serving MCP over stdio\n');
    return;
  }

  // The Redis state keeps the events itself; alone, the server keeps them in memory.
  const eventStore = !SCALED_OUT;
  const { url } = await server.app.listenHttp({ port: parsePort(process.env.PORT), eventStore, retryIntervalMs: RETRY_INTERVAL_MS });
  // Tests read the URL from this first line (PORT=0 picks the port at random).
  process.stdout.write(`armature-conformance-server: MCP endpoint at ${url}\n`);
  const stop = () => {
    void server.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`armature-conformance-server: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
