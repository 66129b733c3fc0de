import {
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type Resource,
  ResourceNotFoundError,
  type ResourceTemplateType,
  McpServer as SdkMcpServer,
  type ServerCapabilities,
  type ServerContext,
  type StandardSchemaV1,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/server';
import type {
  AppDefinition,
  CallPlan,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from '../builder/definitions.js';
import type { Middleware } from '../context/execution-context.js';
import { MODERN_REVISION } from '../context/modern-call.js';
import type { ServerPurpose } from '../context/server-purpose.js';
import { callMessages } from '../messages/call-messages.js';
import { sdkInternals } from '../seams/sdk-internals.js';
import { isAllowed, visibleEntries } from './access.js';
import { completionKind, promptKind, resourceKind, toolKind, unknownPrompt, unknownTool } from './call-kinds.js';
import { CallRequest, type RequestEnvironment } from './call-request.js';
import type { Catalog } from './catalog.js';
import { paginate } from './catalog.js';
import type { ChangeBroadcaster, LiveConnection } from './change-notifier.js';
import { DirectDispatcher } from './direct-dispatch.js';
import { type CallKind, type ExecutorSettings, executeCall } from './execute-call.js';
import { withMiddleware } from './middleware.js';
import type { ModernDirectDispatcher } from './modern-direct-dispatch.js';
import { serveTasks } from './tasks/task-handlers.js';
import type { TaskService } from './tasks/task-service.js';

/** What serving needs from the app: its definitions, run-time catalogs and settings. */
export interface ServedApp extends RequestEnvironment, ExecutorSettings {
  readonly definition: AppDefinition;
  readonly capabilities: ServerCapabilities;
  readonly tools: Catalog<ToolDefinition, Tool>;
  readonly resources: Catalog<ResourceDefinition, Resource>;
  readonly resourceTemplates: Catalog<ResourceTemplateDefinition, ResourceTemplateType>;
  readonly prompts: Catalog<PromptDefinition, Prompt>;
  readonly middleware: readonly Middleware[];
  readonly pageSize: number;
  readonly maxUriLength: number;
  readonly maxSubscriptionsPerSession: number;
  readonly broadcaster: ChangeBroadcaster;
  readonly tasks: TaskService;
  /** The tool and prompt kinds, made once: they name the entries a caller may see. */
  readonly kinds: {
    readonly tools: CallKind<CallToolResult, ToolDefinition>;
    readonly prompts: CallKind<GetPromptResult, PromptDefinition>;
  };
}

/** The kinds that answer an unknown or hidden name with the names this caller may see. */
export function callKindsOf(app: Pick<ServedApp, 'tools' | 'prompts'>): ServedApp['kinds'] {
  return {
    tools: toolKind(async (call) => (await visibleEntries(app.tools, call)).map((t) => t.name)),
    prompts: promptKind(async (call) => (await visibleEntries(app.prompts, call)).map((p) => p.name)),
  };
}

type Params = Record<string, unknown> | undefined;
type Handler = (params: Params, request: CallRequest) => unknown;

/**
 * The `uri` a request names, refused (-32602) past the length limit: template matching costs grow
 * faster than the URI, so an over-long one is never matched.
 */
function uriOf(app: ServedApp, params: Params): string {
  const uri = String(params?.uri);
  if (uri.length > app.maxUriLength) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.uriTooLong(uri.length, app.maxUriLength));
  }
  return uri;
}

/** The template serving `uri`: the first enabled one whose pattern matches, with its variables. */
function matchTemplate(
  app: Pick<ServedApp, 'resourceTemplates'>,
  uri: string,
): { template: ResourceTemplateDefinition; variables: Record<string, unknown> } | undefined {
  for (const template of app.resourceTemplates.enabledDefinitions()) {
    const variables = template.template.match(uri);
    if (variables) return { template, variables };
  }
  return undefined;
}

/** The plan that answers for `uri` (a resource, else the first matching template), if any. */
export function planOfUri(app: Pick<ServedApp, 'resources' | 'resourceTemplates'>, uri: string): CallPlan | undefined {
  return app.resources.get(uri)?.plan ?? matchTemplate(app, uri)?.template.plan;
}

/**
 * A fresh SDK server for one connection (or one 2026-07-28 request), serving the app's shared,
 * prebuilt catalogs: a handful of request handlers, none per tool, so the cost does not grow with
 * the number of tools. A `connection` is kept informed of changes until it closes (a
 * `shared-session` learns of them through the shared state). The direct path sits in front of the
 * SDK on 2025-11-25 connections and sessions, on the transport the SDK connects to or, given a
 * `wire`, on that one (stdio: ahead of the SDK's per-connection entry); `direct: false` leaves
 * every request to the SDK (the byte-equality tests compare the two). Given `modern`, the
 * server's handlers are also that 2026-07-28 direct path's (the one server it serves with).
 */
export function createSdkServer(
  app: ServedApp,
  purpose: ServerPurpose,
  { direct = true, wire, modern }: { direct?: boolean; wire?: Transport; modern?: ModernDirectDispatcher } = {},
): SdkMcpServer {
  const { info, instructions } = app.definition;
  const mcp = new SdkMcpServer(
    { ...info },
    {
      capabilities: app.capabilities,
      ...(instructions ? { instructions } : {}),
      requestState: { verify: (state, ctx) => app.codec.verify(state, ctx) },
      // The direct path's server is bound to 2026-07-28 as the SDK's entry binds its own.
      ...(modern ? { supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, MODERN_REVISION] } : {}),
    },
  );
  const connection: LiveConnection = { mcp, subscriptions: new Set() };
  const server = mcp.server;
  // A one-request 2026-07-28 server never serves the 2025-11-25 era: no direct path.
  const sdk = direct && purpose !== 'request' ? sdkInternals() : undefined;
  const directPath = sdk ? new DirectDispatcher(server, sdk, app.stats) : undefined;
  // `params`: a schema of Armature's own for a method the SDK has no schema for on every revision
  // (the tasks extension's methods on 2026-07-28); the handler checks the rest.
  const on = (method: string, handler: Handler, params?: StandardSchemaV1) => {
    const serve = async (params: Params, sdk: ServerContext) => {
      const call = new CallRequest(app, method, sdk, server);
      try {
        const result =
          app.middleware.length === 0
            ? await handler(params, call)
            : await withMiddleware(app.middleware, call, params, app, async () => handler(params, call));
        // Log lines and progress the handler did not await go out before its answer.
        const sent = call.ctx.sent();
        if (sent) await sent;
        return result;
      } finally {
        await call.end();
      }
    };
    if (params)
      server.setRequestHandler(method, { params }, (checked, sdk) => serve(checked as Params, sdk) as Promise<Record<string, unknown>>);
    else
      server.setRequestHandler(
        method as never,
        ((request: { params?: Params }, sdk: ServerContext) => serve(request.params, sdk)) as never,
      );
    directPath?.handle(method, serve);
    modern?.handle(method, serve);
  };
  // The SDK answers ping itself; the direct paths answer it the same way.
  directPath?.handle('ping', async () => ({}));
  modern?.handle('ping', async () => ({}));
  // Connections of the 2025-11-25 era (stdio, in-memory, HTTP sessions) get the direct path in
  // front of the SDK once it is connected; 2026-07-28 requests always go through the SDK.
  if (directPath && wire) directPath.interpose(wire);
  else if (directPath) {
    const connect = mcp.connect.bind(mcp);
    mcp.connect = async (transport) => {
      await connect(transport);
      directPath.interpose(transport);
    };
  }

  const { tools, prompts } = app.kinds;
  const asTask = app.capabilities.tasks ? serveTasks(app, server, on) : undefined;
  // A list without guards or scopes is the same for every caller: its pages are kept by the catalog
  // (shared and frozen, so never handed to middleware, which may change a result).
  const page = async <D extends { plan: CallPlan }, V>(key: string, catalog: Catalog<D, V>, params: Params, call: CallRequest) => {
    const cursor = params?.cursor as string | undefined;
    if (!catalog.guarded() && app.middleware.length === 0) return catalog.page(key, cursor, app.pageSize);
    const { items, nextCursor } = paginate(await visibleEntries(catalog, call), cursor, app.pageSize);
    return { [key]: items, ...(nextCursor ? { nextCursor } : {}) };
  };

  on('tools/list', (params, call) => page('tools', app.tools, params, call));
  on('tools/call', async (params, call) => {
    const name = String(params?.name);
    const tool = app.tools.get(name);
    if (!tool)
      return unknownTool(
        name,
        (await visibleEntries(app.tools, call)).map((t) => t.name),
      );
    const task = await asTask?.(tool, params, call);
    if (task) return task;
    return executeCall(app, tool.plan, tools, tool, call, params?.arguments);
  });

  if (app.capabilities.resources) {
    on('resources/list', (params, call) => page('resources', app.resources, params, call));
    on('resources/templates/list', (params, call) => page('resourceTemplates', app.resourceTemplates, params, call));
    on('resources/read', async (params, call) => {
      const uri = uriOf(app, params);
      const resource = app.resources.get(uri);
      if (resource) return executeCall(app, resource.plan, resourceKind, { uri, mimeType: resource.descriptor.mimeType }, call, undefined);
      const match = matchTemplate(app, uri);
      if (!match) throw new ResourceNotFoundError(uri);
      const { template, variables } = match;
      return executeCall(app, template.plan, resourceKind, { uri, mimeType: template.descriptor.mimeType }, call, variables);
    });
    // resources/subscribe is a 2025-11-25 method the SDK does not implement (2026-07-28 uses
    // subscriptions/listen, served by the SDK's entry points). It asks the same guards and scopes
    // as a read: a hidden resource answers exactly like a missing one.
    on('resources/subscribe', async (params, call) => {
      const uri = uriOf(app, params);
      const plan = planOfUri(app, uri);
      if (!plan || !(await isAllowed(plan, 'call', call))) throw new ResourceNotFoundError(uri);
      const { subscriptions } = connection;
      if (!subscriptions.has(uri) && subscriptions.size >= app.maxSubscriptionsPerSession) {
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, callMessages.tooManySubscriptions(app.maxSubscriptionsPerSession));
      }
      subscriptions.add(uri);
      return {};
    });
    on('resources/unsubscribe', async (params) => {
      connection.subscriptions.delete(String(params?.uri));
      return {};
    });
  }
  if (app.capabilities.prompts) {
    on('prompts/list', (params, call) => page('prompts', app.prompts, params, call));
    on('prompts/get', async (params, call) => {
      const name = String(params?.name);
      const prompt = app.prompts.get(name);
      if (!prompt)
        return unknownPrompt(
          name,
          (await visibleEntries(app.prompts, call)).map((p) => p.name),
        );
      return executeCall(app, prompt.plan, prompts, prompt, call, params?.arguments ?? {});
    });
  }
  if (app.capabilities.completions) {
    on('completion/complete', async (params, call) => complete(app, params, call));
  }
  if (purpose === 'connection') app.broadcaster.track(connection);
  return mcp;
}

interface CompleteParams {
  ref?: { type?: string; name?: string; uri?: string };
  argument?: { name?: string; value?: string };
  context?: { arguments?: Record<string, string> };
}

/**
 * `completion/complete`: the prompt's or template's guards first (completing a hidden prompt
 * would reveal it), then its completion source through the executor.
 */
async function complete(app: ServedApp, raw: Params, call: CallRequest) {
  const params = (raw ?? {}) as CompleteParams;
  const argument = String(params.argument?.name);
  let owner: PromptDefinition | ResourceTemplateDefinition | undefined;
  if (params.ref?.type === 'ref/prompt') {
    owner = app.prompts.get(String(params.ref.name));
    if (!owner || !(await isAllowed(owner.plan, 'call', call))) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.unknownPrompt(String(params.ref.name)));
    }
  } else if (params.ref?.type === 'ref/resource') {
    const uri = uriOf(app, params.ref);
    owner = app.resourceTemplates.enabledDefinitions().find((t) => t.descriptor.uriTemplate === uri);
    const plan = owner?.plan ?? app.resources.get(uri)?.plan;
    // A fixed resource URI has nothing to complete.
    if (!plan || !(await isAllowed(plan, 'call', call))) throw new ResourceNotFoundError(uri);
  }
  const source = owner?.completions.get(argument);
  if (!source) return { completion: { values: [] } };
  const input = { value: String(params.argument?.value ?? ''), context: { argument, arguments: params.context?.arguments ?? {} } };
  return executeCall(app, source, completionKind, argument, call, input);
}
