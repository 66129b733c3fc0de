import { createExampleApp } from './app.js';

const USAGE = `Usage: node dist/main.js [--stdio | --http]

  --stdio   serve MCP over stdin/stdout (for clients that start the server themselves)
  --http    serve Streamable HTTP on 127.0.0.1 (the default); PORT sets the port
            (default 3000, 0 picks a free one)
`;

function parsePort(value: string | undefined): number {
  const port = Number(value ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`PORT must be an integer from 0 to 65535, got "${value}"`);
  return port;
}

async function main(args: readonly string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stderr.write(USAGE);
    return;
  }
  const unknown = args.filter((arg) => arg !== '--stdio' && arg !== '--http');
  if (unknown.length > 0 || (args.includes('--stdio') && args.includes('--http'))) {
    throw new Error(`unexpected arguments: ${args.join(' ')}\n\n${USAGE}`);
  }

  // SIGTERM/SIGINT: stop accepting, let running calls finish (up to 10 s), close, exit.
  const app = createExampleApp().enableShutdownHooks({ deadlineMs: 10_000 });
  if (args.includes('--stdio')) {
    // stdout belongs to the protocol: anything for humans goes to stderr.
    app.listenStdio();
    process.stderr.write('armature-example: serving MCP over stdio\n');
    return;
  }

  const { url } = await app.listenHttp({ port: parsePort(process.env.PORT) });
  // The tests read the URL from this first line (PORT=0 picks the port at random).
  process.stdout.write(`armature-example: MCP endpoint at ${url}\n`);
  process.stdout.write(`Try it: npx @modelcontextprotocol/inspector --cli ${url} --transport http --method tools/list\n`);
  process.stdout.write('Or point any MCP client (Streamable HTTP) at that URL. Ctrl+C stops the server.\n');
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`armature-example: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
