import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROTECTED_RESOURCE_METADATA_PATH } from '../../auth/bearer-auth.js';
import { portBusyError } from '../../messages/startup-error.js';
import { SERVER_CARD_SUFFIX } from './server-card.js';

export interface HttpListenerOptions {
  /** Most open TCP connections; further ones are closed as soon as they are accepted. Default 1,024. */
  maxConnections?: number;
  /** Time a client has to send the request headers (slow-loris guard, Node's `headersTimeout`). Default 10 s. */
  headersTimeoutMs?: number;
  /** Time a client has to send a whole request, body included (Node's `requestTimeout`). Default 30 s. */
  requestTimeoutMs?: number;
  /** Path answering `200 {"status":"ok"}` (503 while shutting down), for load balancers. Default `/health`; `false` turns it off. */
  healthPath?: string | false;
  /**
   * Path answering `200 {"status":"ready"}` when the app can serve, else 503 with the reason: while
   * shutting down, or while its shared state (`redisState`) cannot be reached. For readiness probes
   * (Kubernetes `readinessProbe`), beside `/health` for liveness. Default `/ready`; `false` turns it off.
   */
  readyPath?: string | false;
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  host?: string;
  /** Port; `0` picks a free one. Default 3000. */
  port?: number;
  /** Path of the MCP endpoint. Default `/mcp`. */
  path?: string;
}

/** A node:http server serving one MCP endpoint, its health path and nothing else. */
export interface NodeHttpListener {
  readonly server: Server;
  /** The endpoint's URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
}

/** What the health and readiness paths ask of the app. */
export interface AppHealth {
  /** False once the app is shutting down. */
  up(): boolean;
  /** Undefined when the app can serve requests, else why not. */
  notReady(): Promise<string | undefined>;
}

/**
 * Listens on `host:port` with a node:http server that answers the health and readiness paths,
 * hands `path` (and, with auth, the protected-resource metadata path; with a server card,
 * `path` + `/server-card`, exactly) to `handler`, and answers 404
 * elsewhere; with Node's timeouts and connection cap set against slow or greedy clients.
 */
export async function listenNodeHttp(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
  options: HttpListenerOptions & { auth?: unknown; serverCard?: unknown },
  health: AppHealth,
): Promise<NodeHttpListener> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const healthPath = options.healthPath === undefined ? '/health' : options.healthPath;
  const readyPath = options.readyPath === undefined ? '/ready' : options.readyPath;
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const pathname = (req.url ?? '/').split('?')[0] ?? '/';
    if (healthPath && pathname === healthPath) {
      const healthy = health.up();
      res
        .writeHead(healthy ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: healthy ? 'ok' : 'shutting down' }));
      return;
    }
    if (readyPath && pathname === readyPath) {
      void health.notReady().then((reason) => {
        const body = reason === undefined ? { status: 'ready' } : { status: 'not ready', reason };
        res.writeHead(reason === undefined ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
      return;
    }
    const served =
      pathname === path ||
      (options.auth && pathname.startsWith(PROTECTED_RESOURCE_METADATA_PATH)) ||
      (options.serverCard && pathname === `${path}${SERVER_CARD_SUFFIX}`);
    if (!served) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `Not found: the MCP endpoint is ${path}` }));
      return;
    }
    void handler(req, res);
  };
  // Loaded here, not at import: a stdio server never loads node:http.
  const { createServer: createNodeServer } = await import('node:http');
  // Node checks these timeouts on an interval (30 s by default): check often enough to honour them.
  const server = createNodeServer({ connectionsCheckingInterval: Math.max(100, Math.min(5_000, headersTimeout / 4)) }, onRequest);
  // `Expect: 100-continue`: the handler checks the headers (size, auth) before telling the client to send the body.
  server.on('checkContinue', onRequest);
  server.headersTimeout = headersTimeout;
  server.requestTimeout = Math.max(headersTimeout, options.requestTimeoutMs ?? 30_000);
  server.maxConnections = options.maxConnections ?? 1_024;
  await new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? portBusyError(options.port ?? 3000, host, error) : error);
    server.once('error', fail);
    server.listen(options.port ?? 3000, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { server, url: `http://${shownHost}:${port}${path}` };
}
