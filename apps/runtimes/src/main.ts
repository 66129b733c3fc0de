import { createConformanceApp } from '@armature/conformance-server/dist/app.js';
import { listenNative } from './native-listener.js';

/**
 * The conformance app on the runtime's own HTTP server (Bun.serve / Deno.serve), printing
 * `MCP endpoint at URL` once listening (PORT, default 3000; 0 picks a free port). Over stdio and
 * node:http the tests run the conformance server's own dist/main.js unchanged.
 */
async function main(): Promise<void> {
  const server = createConformanceApp();
  const listener = await listenNative(server.app.httpHandler({ eventStore: true, retryIntervalMs: 500 }), {
    port: Number(process.env.PORT ?? 3000),
  });
  process.stdout.write(`armature-runtimes: MCP endpoint at ${listener.url} (${listener.runtime} server)\n`);
  const stop = () => {
    void listener
      .close()
      .then(() => server.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`armature-runtimes: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
