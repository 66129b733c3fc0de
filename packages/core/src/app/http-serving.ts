import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppEngine } from '../engine/app-engine.js';
import type { AppRuntime } from '../runtime/app-runtime.js';
import { TaskNotifications } from '../runtime/tasks/task-notifications.js';
import { HttpEndpoint, type HttpEndpointOptions } from '../transports/http/http-endpoint.js';
import { type HttpListenerOptions, listenNodeHttp } from '../transports/http/http-listener.js';
import { exposureWarning } from '../transports/http/network-exposure.js';
import { toAdmittingNodeHandler } from '../transports/http/node-http-adapter.js';
import { ServerCardRoute, serverCardOf } from '../transports/http/server-card.js';
import type { SessionRelay } from '../transports/sessions/session-relay.js';
import type { AppLifecycle } from './app-lifecycle.js';

// Serving an app over HTTP: its endpoint as a handler (node:http and fetch), and its own listener.

export interface ListenHttpOptions extends HttpEndpointOptions, HttpListenerOptions {}

export interface HttpListener {
  /** The endpoint's URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

/** A handler to mount in an existing node:http or Express server, and its web-standard face. */
export interface McpHttpHandler {
  (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
  /** `remoteAddress` (the peer's IP) lets per-client caps count unauthenticated clients. */
  fetch(request: Request, info?: { remoteAddress?: string }): Promise<Response>;
  close(): Promise<void>;
}

/** What serving HTTP needs of the app. */
export interface HttpServed {
  readonly runtime: AppRuntime;
  readonly engine: AppEngine;
  readonly lifecycle: AppLifecycle;
  readonly relay?: SessionRelay;
  /** Why the app cannot serve now, or undefined (the readiness path's answer). */
  notReady(): Promise<string | undefined>;
}

let warnedExposure = false;

/** The app's MCP endpoint as a node:http / Express handler, with Host/Origin checks on by default; closed with the app. */
export function httpHandlerOf(app: HttpServed, options: HttpEndpointOptions): McpHttpHandler {
  const { runtime, engine, lifecycle } = app;
  // Until it is bound (a few microtasks), node:http requests go through the SDK; fetch waits for it.
  const bound = engine.bindModern();
  const endpoint = new HttpEndpoint(
    (purpose) => engine.createServer(purpose),
    options,
    {
      scopes: (method, params) => runtime.requiredScopes(method, params),
      headerParams: (tool) => runtime.tools.get(tool)?.headerParams,
    },
    {
      maxSubscriptionsPerSession: runtime.maxSubscriptionsPerSession,
      maxUriLength: runtime.maxUriLength,
      unreadable: (uris, principal, meta) => runtime.unreadable(uris, principal, meta),
    },
    app.relay,
    (call) => engine.modern?.serve(call),
    { store: runtime.rateLimiting.store, events: runtime.events, errorShape: runtime.rateLimiting.errorShape },
    new TaskNotifications(runtime.tasks),
    options.serverCard ? new ServerCardRoute(serverCardOf(runtime.definition.info, options.serverCard)) : undefined,
  );
  const forget = lifecycle.addEndpoint(endpoint);
  const unregister = runtime.broadcaster.addNotifier(endpoint.notifier);
  const node = toAdmittingNodeHandler(endpoint, options);
  const close = () => {
    unregister();
    forget();
    return endpoint.close();
  };
  lifecycle.track(close);
  return Object.assign((req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => node(req, res, parsedBody), {
    fetch: async (request: Request, info?: { remoteAddress?: string }) => {
      await bound;
      return endpoint.fetch(request, info);
    },
    close,
  });
}

/** Listens on `options.host`:`options.port` with `handler`, warning once when the listener is exposed; closed with the app. */
export async function listenOn(app: HttpServed, handler: McpHttpHandler, options: ListenHttpOptions): Promise<HttpListener> {
  const { runtime, engine, lifecycle } = app;
  await engine.bindModern();
  const warning = exposureWarning({ host: options.host ?? '127.0.0.1', auth: options.auth, allowedHosts: options.allowedHosts });
  if (warning && !warnedExposure) {
    warnedExposure = true;
    process.stderr.write(`[armature] WARNING ${warning}\n`);
  }
  const { server, url } = await listenNodeHttp(handler, options, {
    up: () => !lifecycle.shuttingDown,
    notReady: () => app.notReady(),
  });
  const forget = lifecycle.addListener(server);
  const close = async () => {
    forget();
    await handler.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  lifecycle.track(close);
  runtime.events.emit({ event: 'started', transport: 'http', url });
  return { url, close };
}
