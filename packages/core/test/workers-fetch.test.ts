import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMcpApp, McpServer, serveOnWorkers, Tool } from '../src/index.js';

@McpServer({ name: 'edge', version: '1.0.0' })
class Edge {
  @Tool({ description: 'd' })
  ping() {
    return 'pong';
  }
}

// The Worker itself is served by workerd in apps/runtimes/test/workers.test.ts; here, what is
// refused at start-up there, under workerd's documented user agent.
describe('on Cloudflare Workers', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('refuses listenStdio and listenHttp with the reason and the fix', async () => {
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' });
    const app = createMcpApp(Edge);
    expect(() => app.listenStdio()).toThrow(
      'listenStdio() cannot run on Cloudflare Workers: a Worker has no stdin or stdout, only requests',
    );
    await expect(app.listenHttp()).rejects.toThrow(
      "listenHttp() cannot run on Cloudflare Workers: a Worker listens on no port; Cloudflare hands it each request. Fix: export default serveOnWorkers(() => createMcpApp(MyServer)) from the Worker's entry",
    );
    await app.shutdown();
  });

  it('serveOnWorkers takes a function that makes the app (a Worker may not make one at its top level)', async () => {
    const app = createMcpApp(Edge);
    expect(() => serveOnWorkers(app as never)).toThrow(
      'serveOnWorkers needs a function that makes the app, got McpApp. Fix: export default serveOnWorkers(() => createMcpApp(MyServer))',
    );
    await app.shutdown();
  });
});
