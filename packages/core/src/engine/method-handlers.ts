import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type Server, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import type { CallPlan, PromptDefinition, ResourceTemplateDefinition } from '../builder/definitions.js';
import { callMessages } from '../messages/call-messages.js';
import { isAllowed, visibleEntries } from '../runtime/access.js';
import { completionKind, resourceKind, unknownPrompt, unknownTool } from '../runtime/call-kinds.js';
import type { CallRequest } from '../runtime/call-request.js';
import { type Catalog, paginate } from '../runtime/catalog.js';
import type { LiveConnection } from '../runtime/change-notifier.js';
import { executeCall } from '../runtime/execute-call.js';
import { callExtensionMethod } from '../runtime/extensions/extension-methods.js';
import { toolCallHooks } from '../runtime/extensions/tool-call-hooks.js';
import { mayCall, seesServedTools, toolsPageFor, visibleTools } from '../runtime/extensions/tool-views.js';
import { matchTemplate, planOfUri, type ServedApp, watchUri } from '../runtime/served-app.js';

type Params = Record<string, unknown> | undefined;
/** One method's handler, run after the middleware, with the request's params and its call. */
export type MethodHandler = (params: Params, call: CallRequest) => unknown;
/** Registers `handler` for `method` (with `params`, a schema of Armature's own for a method the SDK has no schema for on every revision). */
export type RegisterMethod = (method: string, handler: MethodHandler, params?: StandardSchemaV1) => void;

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

/**
 * The params of an extension's method as the SDK hands them on: any object (or none), checked by
 * the method's own params DTO. The SDK serves a method it has no schema for only to a handler
 * registered with one.
 */
const extensionParams: StandardSchemaV1<Params, Params> = {
  '~standard': {
    version: 1,
    vendor: 'armature',
    validate: (value) =>
      value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value))
        ? { value: value as Params }
        : { issues: [{ message: 'params must be an object' }] },
  },
};

/**
 * The handlers of every method Armature answers, registered through `on` for one connection (its
 * SDK `server` and `connection` record): tools, resources, prompts, completion, tasks and the
 * extensions' methods, each the same whichever path (the SDK's or the engine's) serves the request.
 */
export function registerMethodHandlers(app: ServedApp, server: Server, connection: LiveConnection, on: RegisterMethod): void {
  const { tools, prompts } = app.kinds;
  // The extensions that may answer a tools/call in the tool's place (tasks: with a task).
  const hooks = toolCallHooks(app, server);
  // A list without guards or scopes is the same for every caller: its pages are kept by the catalog
  // (shared and frozen, so never handed to middleware, which may change a result).
  const page = async <D extends { plan: CallPlan }, V>(key: string, catalog: Catalog<D, V>, params: Params, call: CallRequest) => {
    const cursor = params?.cursor as string | undefined;
    if (!catalog.guarded() && app.middleware.length === 0 && !call.filtered) return catalog.page(key, cursor, app.pageSize);
    const { items, nextCursor } = paginate(await visibleEntries(catalog, call), cursor, app.pageSize);
    return { [key]: items, ...(nextCursor ? { nextCursor } : {}) };
  };

  // An extension's change of a tool (MCP Apps' `_meta.ui`) is seen only by the clients that negotiated it.
  on('tools/list', (params, call) =>
    seesServedTools(app, call) ? page('tools', app.tools, params, call) : toolsPageFor(app, params?.cursor as string | undefined, call),
  );
  // Not an async function: a call of a known tool on an app without hooks is the executor's promise itself.
  on('tools/call', (params, call) => {
    const name = String(params?.name);
    const tool = app.tools.get(name);
    if (!tool || !mayCall(tool, call))
      return visibleTools(app, call).then((visible) =>
        unknownTool(
          name,
          visible.map((t) => t.name),
        ),
      );
    if (!hooks) return executeCall(app, tool.plan, tools, tool, call, params?.arguments);
    return hooks(tool, params, call).then((answer) => answer ?? executeCall(app, tool.plan, tools, tool, call, params?.arguments));
  });

  if (app.capabilities.resources) {
    on('resources/list', (params, call) => page('resources', app.resources, params, call));
    on('resources/templates/list', (params, call) => page('resourceTemplates', app.resourceTemplates, params, call));
    on('resources/read', async (params, call) => {
      const uri = uriOf(app, params);
      const resource = app.resources.get(uri);
      if (resource) {
        const subject = { uri, mimeType: resource.descriptor.mimeType, contentMeta: resource.contentMeta };
        return executeCall(app, resource.plan, resourceKind, subject, call, undefined);
      }
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
      watchUri(app, uri);
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
  // An extension that advertises nothing (`host.advertise(undefined)`) serves no method either.
  for (const extension of app.definition.extensions) {
    if (extension.settings === undefined) continue;
    for (const method of extension.methods.values()) {
      on(method.name, (params, call) => callExtensionMethod(app, extension, method, params, call), extensionParams);
    }
  }
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
