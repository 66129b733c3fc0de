/**
 * Serves an app's web-standard handler (`app.httpHandler().fetch`) on the runtime's own HTTP server:
 * `Bun.serve` under Bun, `Deno.serve` under Deno. Under Node there is none: use `app.listenHttp()`.
 */
import type { McpHttpHandler } from '@armature/core';

export type Runtime = 'bun' | 'deno' | 'node';

/** The JavaScript runtime running this process. */
export function currentRuntime(): Runtime {
  if ('Bun' in globalThis) return 'bun';
  if ('Deno' in globalThis) return 'deno';
  return 'node';
}

export interface NativeListenOptions {
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string;
  /** Port; `0` picks a free one. Default 3000. */
  port?: number;
  /** Path of the MCP endpoint. Default `/mcp`. */
  path?: string;
}

export interface NativeListener {
  readonly runtime: 'bun' | 'deno';
  readonly url: string;
  close(): Promise<void>;
}

function notFound(path: string): Response {
  return Response.json({ error: `Not found: the MCP endpoint is ${path}` }, { status: 404 });
}

/** Listens with `Bun.serve` or `Deno.serve`; throws under Node, naming what to use instead. */
export async function listenNative(handler: McpHttpHandler, options: NativeListenOptions = {}): Promise<NativeListener> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const port = options.port ?? 3000;
  const onPath = (request: Request) => new URL(request.url).pathname === path;
  const runtime = currentRuntime();
  if (runtime === 'bun') {
    // #region bun-serve
    const server = Bun.serve({
      hostname: host,
      port,
      // Bun closes a connection idle for 10 s by default; an SSE stream waiting for its next event is idle.
      idleTimeout: 0,
      fetch: (request, bun) => {
        if (!onPath(request)) return notFound(path);
        return handler.fetch(request, { remoteAddress: bun.requestIP(request)?.address });
      },
    });
    // #endregion
    return {
      runtime,
      url: `http://${host}:${server.port}${path}`,
      async close() {
        await handler.close();
        await server.stop(true);
      },
    };
  }
  if (runtime === 'deno') {
    // #region deno-serve
    let server: Deno.HttpServer | undefined;
    const bound = await new Promise<number>((resolve) => {
      server = Deno.serve({ hostname: host, port, onListen: (addr) => resolve(addr.port) }, (request, info) =>
        onPath(request) ? handler.fetch(request, { remoteAddress: info.remoteAddr.hostname }) : notFound(path),
      );
    });
    // #endregion
    return {
      runtime,
      url: `http://${host}:${bound}${path}`,
      async close() {
        await handler.close();
        await server?.shutdown();
      },
    };
  }
  throw new Error('listenNative: this process runs on Node, which has no built-in fetch server; use app.listenHttp() there');
}
