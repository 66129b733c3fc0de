import { randomBytes } from 'node:crypto';
import {
  type AuthInfo,
  createRequestStateCodec,
  type Prompt,
  type Resource,
  type ResourceTemplateType,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/server';
import type {
  AppDefinition,
  CallPlan,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from '../builder/definitions.js';
import type { ErrorFilter, Middleware } from '../context/execution-context.js';
import type { ContainerAdapter } from '../di/container-adapter.js';
import { callMessages } from '../messages/call-messages.js';
import { RequestTracing, type TelemetryOptions } from '../observability/request-tracing.js';
import { ServerEvents } from '../observability/server-events.js';
import { MemoryRateLimitStore } from '../state/memory-rate-limit-store.js';
import type { RateLimitErrorShape } from '../state/rate-limit-error.js';
import type { RateLimitStore } from '../state/rate-limit-store.js';
import { isAllowed } from './access.js';
import type { RuntimeStats, ToolErrorReporter } from './call-request.js';
import { CallRequest } from './call-request.js';
import { Catalog } from './catalog.js';
import { ChangeBroadcaster } from './change-notifier.js';
import type { RequestStateCodecOf } from './client-requests.js';
import { EXPOSE_ERRORS_ENV } from './execute-call.js';
import { RateLimiting } from './rate-limiting.js';
import { ClientlessSource } from './request-source.js';
import { callKindsOf, planOfUri, type ServedApp, watchUri } from './served-app.js';
import type { TaskOptions } from './tasks/task-options.js';
import { TaskService } from './tasks/task-service.js';
import { CatalogVisibility } from './visibility.js';

export interface RuntimeOptions {
  /** Items per page of every list (`tools/list`, `resources/list`, ...). Default 100. */
  pageSize?: number;
  /**
   * HMAC key signing the state of 2026-07-28 multi-round-trip calls (`ctx.elicit` and friends).
   * Default: a random key per process; give every instance the same key when several serve one
   * endpoint behind a load balancer.
   */
  requestStateKey?: string | Uint8Array;
  /** How long an unanswered 2026-07-28 round stays valid. Default 600 s. */
  requestStateTtlSeconds?: number;
  /**
   * A call (tool, resource, prompt) running longer is stopped: its signal aborts, the client gets
   * an error, the DI scope is disposed. Default 60,000 ms; 0 turns it off.
   */
  timeoutMs?: number;
  /**
   * Sends callers the message of unexpected errors (anything but `ToolError`, `McpError` and
   * invalid arguments). Default false, whatever `NODE_ENV` says: the caller reads `Tool "x" failed
   * unexpectedly; the error was logged on the server (request 7, error 5f3a9c1e)` and the server's
   * log has the full error under the same error id. `@armature/testing` turns it on, and so does
   * `armature dev` (through `ARMATURE_EXPOSE_ERRORS=1` in the server's environment).
   */
  exposeErrors?: boolean;
  /** Runs around every request Armature handles; see `Middleware`. */
  middleware?: Middleware[];
  /** The one place to map errors; see `ErrorFilter`. */
  errorFilter?: ErrorFilter;
  /**
   * Longest resource URI accepted by `resources/read`, `resources/subscribe` and completions,
   * checked before any URI template is matched. Default 8,192 characters.
   */
  maxUriLength?: number;
  /** Most `resources/subscribe` subscriptions one 2025-11-25 connection may hold. Default 1,000. */
  maxSubscriptionsPerSession?: number;
  /** Tools run as MCP tasks (`@Tool({ task })`): their store, ttl, polling interval and lease; see docs/tasks.md. */
  tasks?: TaskOptions;
  /**
   * OpenTelemetry spans and metrics through `@opentelemetry/api`, recorded once the app registers
   * an SDK's providers (no-ops until then); see docs/observability.md. Default true; false turns
   * the instrumentation off (e.g. to measure what it costs); `{ detail: 'steps' }` adds spans for
   * the guards, the validation and each request sent to the client.
   */
  telemetry?: boolean | TelemetryOptions;
  /**
   * Where rate-limit counts live (`@RateLimit`, `rateLimits`). Default: the `state`'s store
   * (`redisState()` shares counts between instances), else this process's memory, at most 10,000
   * keys (`new MemoryRateLimitStore(maxKeys)` for another bound).
   */
  rateLimitStore?: RateLimitStore;
  /**
   * How a call refused by a rate limit is answered, on both revisions and both wires. `'armature'`
   * (default): `RATE_LIMITED` (-32029) with `data.retryAfterSeconds` and `data.retryAfterMs`, and a
   * tool call a tool error the model reads. `'sep-3304'`: the draft SEP-3304 shape, `-32023` with
   * `data.retryAfterMs`, tool calls included; the HTTP 429 of `listenHttp({ rateLimit })` keeps
   * its `Retry-After` header. See docs/rate-limits.md.
   */
  rateLimitError?: RateLimitErrorShape;
  /**
   * Tags whose tools, resources and prompts are hidden from everyone until shown to a session or a
   * principal (`app.tools.showFor(target, { tags })`), e.g. `['admin']`; see docs/visibility.md.
   */
  hiddenTags?: string[];
}

function capabilitiesOf(definition: AppDefinition): ServerCapabilities {
  // A remote server's catalogue is only known once it answers, and may change: any of it may come.
  const remote = definition.remoteParts.length > 0;
  const hasResources = remote || definition.resources.size > 0 || definition.resourceTemplates.length > 0;
  const hasPrompts = remote || definition.prompts.size > 0;
  const hasCompletions =
    remote ||
    [...definition.prompts.values()].some((p) => p.completions.size > 0) ||
    definition.resourceTemplates.some((t) => t.completions.size > 0);
  const hasTasks = [...definition.tools.values()].some((t) => t.taskSupport !== 'forbidden');
  const advertised = definition.extensions.filter((extension) => extension.settings !== undefined);
  return {
    tools: { listChanged: true },
    logging: {},
    ...(hasResources ? { resources: { subscribe: true, listChanged: true } } : {}),
    ...(hasPrompts ? { prompts: { listChanged: true } } : {}),
    ...(hasCompletions || hasPrompts || hasResources ? { completions: {} } : {}),
    // spec 2025-11-25 tasks utility: the server may be asked to run tools/call as a task.
    ...(hasTasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
    // Extensions (SEP-1724), each with its settings: Armature's own (the 2026-07-28 tasks extension
    // when a tool may run as a task, MCP Apps when a tool has an app), then the app's.
    ...(advertised.length > 0
      ? {
          extensions: Object.fromEntries(
            advertised.map((extension) => [extension.id, extension.settings]),
          ) as ServerCapabilities['extensions'],
        }
      : {}),
  };
}

/**
 * The serving side of an app, put together once: the frozen definitions, the run-time catalogs
 * (what is enabled), the settings every call runs under, and who is told about changes. Requests
 * are served by `createSdkServer` (dispatch) and run by the one executor.
 */
export class AppRuntime implements ServedApp {
  readonly stats: RuntimeStats = { liveScopes: 0, calls: 0, engine: 0 };
  readonly tools: Catalog<ToolDefinition, Tool>;
  readonly resources: Catalog<ResourceDefinition, Resource>;
  readonly resourceTemplates: Catalog<ResourceTemplateDefinition, ResourceTemplateType>;
  readonly prompts: Catalog<PromptDefinition, Prompt>;
  readonly broadcaster: ChangeBroadcaster;
  readonly capabilities: ServerCapabilities;
  readonly codec: RequestStateCodecOf;
  readonly pageSize: number;
  readonly timeoutMs: number;
  readonly exposeErrors: boolean;
  readonly errorFilter?: ErrorFilter;
  readonly middleware: readonly Middleware[];
  readonly kinds: ServedApp['kinds'];
  readonly maxUriLength: number;
  readonly maxSubscriptionsPerSession: number;
  readonly tasks: TaskService;
  /** What the server itself did (refusals, failures, start and stop), for logs and metrics. */
  readonly events = new ServerEvents();
  /** Spans and metrics of every request, handler, client request, session and task. */
  readonly telemetry: RequestTracing;
  readonly rateLimiting: RateLimiting;
  readonly visibility: CatalogVisibility;

  /** Every unexpected error Armature answered for: told to the app's observers, then to `onError`. */
  readonly reportError: ToolErrorReporter;

  constructor(
    readonly definition: AppDefinition,
    readonly container: ContainerAdapter,
    onError: ToolErrorReporter | undefined,
    options: RuntimeOptions = {},
  ) {
    this.reportError = (error, info) => {
      const { tool: what, label, requestId, errorId } = info;
      this.events.emit({ event: 'call-failed', what, label, requestId, ...(errorId === undefined ? {} : { errorId }), error });
      onError?.(error, info);
    };
    this.pageSize = options.pageSize ?? 100;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.exposeErrors = options.exposeErrors ?? process.env[EXPOSE_ERRORS_ENV] === '1';
    this.errorFilter = options.errorFilter;
    // The app's middleware outermost, then each extension's `onRequest` in the order listed.
    this.middleware = Object.freeze([...(options.middleware ?? []), ...definition.extensions.flatMap((e) => e.onRequest ?? [])]);
    this.maxUriLength = options.maxUriLength ?? 8_192;
    this.visibility = new CatalogVisibility(options.hiddenTags);
    this.broadcaster = new ChangeBroadcaster((sessionId) => this.visibility.forgetSession(sessionId));
    this.maxSubscriptionsPerSession = options.maxSubscriptionsPerSession ?? 1_000;
    const telemetry = options.telemetry ?? true;
    this.telemetry = new RequestTracing(telemetry !== false, this.events, typeof telemetry === 'object' ? telemetry : undefined);
    // requestState comes back from the client: it must be signed, or a client could forge answers.
    this.codec = createRequestStateCodec({
      key: options.requestStateKey ?? randomBytes(32),
      ttlSeconds: options.requestStateTtlSeconds ?? 600,
    });
    this.tools = new Catalog([...definition.tools.values()].map((d) => [d.name, d, d.descriptor as Tool] as const));
    this.resources = new Catalog([...definition.resources.values()].map((d) => [d.uri, d, d.descriptor as Resource] as const));
    this.resourceTemplates = new Catalog(
      definition.resourceTemplates.map((d) => [d.name, d, d.descriptor as ResourceTemplateType] as const),
    );
    this.prompts = new Catalog([...definition.prompts.values()].map((d) => [d.name, d, d.descriptor as Prompt] as const));
    this.capabilities = capabilitiesOf(definition);
    this.kinds = callKindsOf(this);
    this.tasks = new TaskService(this, options.tasks);
    this.rateLimiting = new RateLimiting(options.rateLimitStore ?? new MemoryRateLimitStore(), this.events, options.rateLimitError);
  }

  /** The OAuth scopes a JSON-RPC request needs (`@RequireScopes` of what it calls), for HTTP step-up. */
  requiredScopes(method: string, params: Record<string, unknown> | undefined): readonly string[] {
    let plan: CallPlan | undefined;
    if (method === 'tools/call') plan = this.tools.get(String(params?.name))?.plan;
    else if (method === 'prompts/get') plan = this.prompts.get(String(params?.name))?.plan;
    else if (method === 'resources/read') {
      const uri = String(params?.uri);
      // An over-long URI is refused by resources/read before any template sees it.
      if (uri.length > this.maxUriLength) return [];
      plan = this.resources.get(uri)?.plan ?? this.resourceTemplates.enabledDefinitions().find((t) => t.template.match(uri))?.plan;
    }
    return plan?.scopes ?? [];
  }

  /**
   * The first of `uris` a 2026-07-28 `subscriptions/listen` caller may not read, missing or hidden
   * alike (its guards and scopes asked as for `resources/read`, with the listen request's `_meta`
   * and principal), or undefined when it may follow them all (a remote server's among them are
   * then watched: its remote is asked to tell of their changes).
   */
  async unreadable(uris: readonly string[], principal: AuthInfo | undefined, meta: Record<string, unknown> | undefined) {
    const source = new ClientlessSource(
      'subscriptions/listen',
      'subscriptions/listen',
      meta,
      principal,
      callMessages.checkCannotAsk('subscriptions/listen'),
    );
    const call = new CallRequest(this, 'subscriptions/listen', source, undefined);
    try {
      for (const uri of uris) {
        const plan = planOfUri(this, uri);
        if (!plan || !(await isAllowed(plan, 'call', call))) return uri;
      }
      // The stream opens: a remote server's resources among them ask their remote to tell of changes.
      for (const uri of uris) watchUri(this, uri);
      return undefined;
    } finally {
      await call.end();
    }
  }

  /** True while any request holds a DI scope (graceful shutdown waits for this to turn false). */
  get busy(): boolean {
    return this.stats.liveScopes > 0;
  }
}
