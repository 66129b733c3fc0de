import { CLIENT_CAPABILITIES_META_KEY, isLegacyRequest } from '@modelcontextprotocol/server';
import { TASKS_EXTENSION } from '../context/protocol-extensions.js';
import { wireMessages } from '../messages/wire-messages.js';
import { otelApiImported } from '../seams/opentelemetry.js';
import type { HttpEndpointOptions } from '../transports/http/http-endpoint.js';
import { jsonRpcErrorResponse } from '../transports/wire/json-rpc-error-response.js';
import type { McpApp, McpHttpHandler } from './create-mcp-app.js';

/** A Worker's default export: its `fetch` serves the MCP endpoint. */
export interface WorkersEntry {
  fetch(request: Request): Promise<Response>;
}

/**
 * The app as a Cloudflare Worker, on the stateless 2026-07-28 revision only. `makeApp` runs at the
 * first request of each isolate (a Worker's top level may not make random values, which an app's
 * start-up does), so start-up errors surface there, in the Worker's log. Refused with the reason: 2025-11-25 sessions (a session lives in one isolate, and a
 * Worker's next request may reach another), `subscriptions/listen` (a stream held open in one
 * isolate hears no change made in another) and tasks (a task outlives its request, and isolates
 * share no task store: see `taskRefused`).
 *
 * @example
 * ```ts
 * export default serveOnWorkers(() => createMcpApp(NotesServer), { allowedHosts: ['notes.example.workers.dev'] });
 * ```
 */
export function serveOnWorkers(makeApp: () => McpApp, options: HttpEndpointOptions = {}): WorkersEntry {
  if (typeof makeApp !== 'function') throw new TypeError(wireMessages.workersNotAFactory(describe(makeApp)));
  // Before any app is made: OpenTelemetry's API is imported from the Worker's bundle, never required from disk.
  void otelApiImported();
  let app: McpApp | undefined;
  let handler: McpHttpHandler | undefined;
  return {
    async fetch(request) {
      app ??= appOf(makeApp);
      handler ??= app.httpHandler(options);
      // OpenTelemetry registered by now (the Worker's top level, the app factory): its API imported before the request is served.
      const otel = otelApiImported();
      if (otel) await otel;
      const body = request.method === 'POST' ? parse(await request.clone().text()) : undefined;
      if (await isLegacyRequest(request, body)) return jsonRpcErrorResponse(400, -32600, wireMessages.workersLegacyRevision, idOf(body));
      if ((body as { method?: unknown } | undefined)?.method === 'subscriptions/listen') {
        return jsonRpcErrorResponse(400, -32600, wireMessages.workersListen, idOf(body));
      }
      const task = taskRefused(app, body);
      if (task) return jsonRpcErrorResponse(400, -32600, wireMessages.workersTask(task), idOf(body));
      // Cloudflare sets the client's address in this header: per-client caps count by it.
      return handler.fetch(request, { remoteAddress: request.headers.get('cf-connecting-ip') ?? undefined });
    },
  };
}

/** The task methods of the 2026-07-28 tasks extension. */
const TASK_METHODS = new Set(['tasks/get', 'tasks/cancel', 'tasks/update']);

/**
 * What of the request would run as a task, which a Worker cannot serve (said in the refusal), or
 * undefined: a task method, a `'required'` task tool, or an `'optional'` one asked by a client that
 * declares the tasks extension (without it, the tool runs inline).
 */
function taskRefused(app: McpApp, body: unknown): string | undefined {
  const { method, params } = (body ?? {}) as { method?: unknown; params?: { name?: unknown; _meta?: Record<string, unknown> } };
  if (typeof method === 'string' && TASK_METHODS.has(method)) return `${method} is not served`;
  if (method !== 'tools/call') return undefined;
  const tool = app.definition.tools.get(String(params?.name));
  if (!tool || tool.taskSupport === 'forbidden') return undefined;
  const capabilities = params?._meta?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  const declared = capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
  return tool.taskSupport === 'required' || declared ? `tool "${tool.name}" runs as a task, which is not served` : undefined;
}

function appOf(makeApp: () => McpApp): McpApp {
  const app = makeApp();
  if (typeof (app as Partial<McpApp> | undefined)?.httpHandler !== 'function')
    throw new TypeError(wireMessages.workersNotAFactory(`a function returning ${describe(app)}`));
  return app;
}

function describe(value: unknown): string {
  return value === null || (typeof value !== 'object' && typeof value !== 'function')
    ? String(value)
    : (value.constructor?.name ?? 'an object');
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // the endpoint answers the parse error itself
  }
}

function idOf(body: unknown): unknown {
  return (body as { id?: unknown } | undefined)?.id ?? null;
}
