import { createConformanceApp } from './app.js';

const USAGE = `Usage: node dist/main.js [--stdio]

  (default)  serve Streamable HTTP on http://127.0.0.1:$PORT/mcp (PORT defaults to 3000, 0 picks a
             free one), with resumable SSE streams (in-memory event store) for SEP-1699
  --stdio    serve MCP over stdin/stdout instead
`;

/** The `retry` hint on resumable SSE streams: how long a client waits before it resumes. */
const RETRY_INTERVAL_MS = 500;

function parsePort(value: string | undefined): number {
  const port = Number(value === undefined || value === '' ? 3000 : value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be an integer from 0 to 65535, got "${value}"`);
  return port;
}

async function main(args: readonly string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stderr.write(USAGE);
    return;
  }
  const unknown = args.filter((arg) => arg !== '--stdio');
  if (unknown.length > 0) throw new Error(`unexpected arguments: ${unknown.join(' ')}\n\n${USAGE}`);

  const server = createConformanceApp();
  if (args.includes('--stdio')) {
    // stdout belongs to the protocol: anything for humans goes to stderr.
    server.app.listenStdio();
    process.stderr.write('armature-conformance-server: serving MCP over stdio\n');
    return;
  }

  const { url } = await server.app.listenHttp({ port: parsePort(process.env.PORT), eventStore: true, retryIntervalMs: RETRY_INTERVAL_MS });
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
