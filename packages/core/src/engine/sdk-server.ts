import {
  McpServer as SdkMcpServer,
  type ServerContext,
  type StandardSchemaV1,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
} from '@modelcontextprotocol/server';
import { isThenable } from '../context/maybe-promise.js';
import { MODERN_REVISION } from '../context/revisions.js';
import type { ServerPurpose } from '../context/server-purpose.js';
import { CallRequest } from '../runtime/call-request.js';
import { type LiveConnection, noteCaller } from '../runtime/change-notifier.js';
import { withMiddleware } from '../runtime/middleware.js';
import { type RequestSource, sourceOf } from '../runtime/request-source.js';
import type { ServedApp } from '../runtime/served-app.js';
import { afterConnect, onClosed } from '../seams/sdk-callbacks.js';
import { sdkInternals } from '../seams/sdk-internals.js';
import { type MethodHandler, registerMethodHandlers } from './method-handlers.js';
import type { ModernFront } from './modern-front.js';
import { SessionFront } from './session-front.js';

type Params = Record<string, unknown> | undefined;

/** The request's result once it settled and its notifications left, after its scope is disposed, whatever happened. */
async function settle(call: CallRequest, pending: unknown): Promise<unknown> {
  try {
    const result = await pending;
    // Log lines and progress the handler did not await go out before its answer.
    const sent = call.ctx.sent();
    if (sent) await sent;
    return result;
  } finally {
    const ended = call.end();
    if (ended) await ended;
  }
}

/**
 * A fresh SDK server for one connection (or one 2026-07-28 request), serving the app's shared,
 * prebuilt catalogs: a handful of request handlers, none per tool, so the cost does not grow with
 * the number of tools. A `connection` is kept informed of changes until it closes (a
 * `shared-session` learns of them through the shared state). The request engine sits in front of the
 * SDK on 2025-11-25 connections and sessions, on the transport the SDK connects to or, given a
 * `wire`, on that one (stdio: ahead of the SDK's per-connection entry); `engine: false` leaves
 * every request to the SDK (the byte-equality tests compare the two). Given `modern`, the
 * server's handlers are also that 2026-07-28 request engine's (the one server it serves with).
 */
export function createSdkServer(
  app: ServedApp,
  purpose: ServerPurpose,
  { engine = true, wire, modern }: { engine?: boolean; wire?: Transport; modern?: ModernFront } = {},
): SdkMcpServer {
  const { info, instructions } = app.definition;
  const mcp = new SdkMcpServer(
    { ...info },
    {
      capabilities: app.capabilities,
      ...(instructions ? { instructions } : {}),
      requestState: { verify: (state, ctx) => app.codec.verify(state, ctx) },
      // The request engine's server is bound to 2026-07-28 as the SDK's entry binds its own.
      ...(modern ? { supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, MODERN_REVISION] } : {}),
    },
  );
  const connection: LiveConnection = { mcp, subscriptions: new Set() };
  const server = mcp.server;
  // A one-request 2026-07-28 server never serves the 2025-11-25 era: no request engine.
  const sdk = engine && purpose !== 'request' ? sdkInternals() : undefined;
  const front = sdk ? new SessionFront(server, sdk, app.stats) : undefined;
  // `params`: a schema of Armature's own for a method the SDK has no schema for on every revision
  // (the tasks extension's methods on 2026-07-28); the handler checks the rest.
  const on = (method: string, handler: MethodHandler, params?: StandardSchemaV1) => {
    // A handler that answered at once, sent nothing through a valve and left no disposal running is
    // answered with no promise; anything pending is awaited in that order by `settle`.
    const run = (call: CallRequest, params: Params): unknown => {
      if (purpose === 'connection') noteCaller(connection, call);
      let result: unknown;
      try {
        result =
          app.middleware.length === 0
            ? handler(params, call)
            : withMiddleware(app.middleware, call, params, app, async () => handler(params, call));
      } catch (error) {
        result = Promise.reject(error);
      }
      if (isThenable(result) || call.ctx.sent()) return settle(call, result);
      const ended = call.end();
      return ended ? ended.then(() => result) : result;
    };
    // Traced as one request (its span active while it runs) when the app registered an OpenTelemetry SDK.
    const serve = (params: Params, source: RequestSource) =>
      app.telemetry.serve(new CallRequest(app, method, source, server), server, params, run);
    if (params)
      server.setRequestHandler(
        method,
        { params },
        (checked, sdk) => serve(checked as Params, sourceOf(sdk)) as Promise<Record<string, unknown>>,
      );
    else
      server.setRequestHandler(
        method as never,
        ((request: { params?: Params }, sdk: ServerContext) => serve(request.params, sourceOf(sdk))) as never,
      );
    front?.handle(method, serve);
    modern?.handle(method, serve);
  };
  // The SDK answers ping itself; the request engines answer it the same way.
  front?.handle('ping', async () => ({}));
  modern?.handle('ping', async () => ({}));
  // Connections of the 2025-11-25 era (stdio, in-memory, HTTP sessions) get the request engine in
  // front of the SDK once it is connected; 2026-07-28 requests always go through the SDK.
  if (front && wire) front.interpose(wire);
  else if (front) afterConnect(mcp, (transport) => front.interpose(transport));

  registerMethodHandlers(app, server, connection, on);
  if (purpose === 'connection') app.broadcaster.track(connection);
  const sessionEnded = purpose === 'request' ? undefined : app.telemetry.session(server);
  if (sessionEnded) onClosed(server, sessionEnded, true);
  return mcp;
}
