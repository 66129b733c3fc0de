import { type Prompt, type Resource, type ResourceTemplateType, type Tool, UriTemplate } from '@modelcontextprotocol/server';
import type {
  CallPlan,
  CompletionDefinition,
  PromptDefinition,
  RemotePartDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from '../builder/definitions.js';
import { deepFreeze, NAME_PATTERN } from '../builder/handler-build.js';
import type { Context } from '../context/context.js';
import type { HandlerKind, JsonSchema } from '../metadata/metadata-args.js';
import { DEFAULT_ARGUMENT_LIMITS } from '../validation/argument-limits.js';
import { headerParamsOf, paramHeadersOf } from '../validation/param-headers.js';
import { forward } from './remote-calls.js';
import type { RemoteLink } from './remote-link.js';
import { templateProblem } from './template-shape.js';

/** A remote server's catalogue as listed by it. */
export interface RemoteLists {
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  readonly resources: readonly Resource[];
  readonly resourceTemplates: readonly ResourceTemplateType[];
  /** Whether it completes prompt arguments and template variables. */
  readonly completions: boolean;
}

/** The catalogue entries a remote part serves, keyed as the app's catalogs key them, and what it leaves out. */
export interface RemoteEntries {
  readonly tools: Map<string, ToolDefinition>;
  readonly prompts: Map<string, PromptDefinition>;
  readonly resources: Map<string, ResourceDefinition>;
  readonly resourceTemplates: Map<string, ResourceTemplateDefinition>;
  readonly skipped: { readonly name: string; readonly reason: string }[];
}

type Result = Record<string, unknown>;
const RAW = Object.freeze({ kind: 'raw' as const });
const RESERVED_META = 'io.modelcontextprotocol/';

/**
 * Definitions for what a remote server lists, served under its part's prefix: each plan has the
 * app's and the part's guards, interceptors, rate limits and tags, and forwards the call. Made
 * when the remote connects and when it says a list changed, never per request.
 */
export function remoteEntries(
  part: RemotePartDefinition,
  link: RemoteLink,
  lists: RemoteLists,
  watch: ((remoteUri: string) => void) | undefined,
): RemoteEntries {
  const { naming } = part;
  const entries: RemoteEntries = { tools: new Map(), prompts: new Map(), resources: new Map(), resourceTemplates: new Map(), skipped: [] };
  const plan = (kind: HandlerKind, name: string, remoteName: string, invoke: CallPlan['invoke']): CallPlan =>
    Object.freeze({
      ...part.base,
      kind,
      name,
      where: `${naming.where}.${remoteName}`,
      methodName: remoteName,
      input: RAW,
      needsInstance: false,
      invoke,
    });
  const call = (ctx: Context, method: Parameters<typeof forward>[3], params: Result, headers?: Record<string, string>) =>
    forward(link, naming, ctx, method, params, headers);
  /** The served name of a tool or prompt, or undefined (reported) when the prefixed name is not a valid one. */
  const served = (name: string) => {
    const key = naming.name(name);
    if (NAME_PATTERN.test(key)) return key;
    entries.skipped.push({ name, reason: `"${key}" is not a valid name (1-128 letters, digits, _ . -)` });
    return undefined;
  };

  for (const tool of lists.tools) {
    const name = served(tool.name);
    if (!name) continue;
    const { execution: _runsAsTask, ...rest } = tool as Tool & { execution?: unknown };
    const descriptor = deepFreeze({ ...rest, name, ...(tool._meta ? { _meta: servedToolMeta(tool._meta, naming.uri.bind(naming)) } : {}) });
    const { headerParams } = remoteHeaderParams(tool.inputSchema as JsonSchema);
    const invoke: CallPlan['invoke'] = async (_instance, args, ctx) =>
      servedToolResult(
        await call(
          ctx,
          'tools/call',
          { name: tool.name, ...(args !== undefined ? { arguments: args } : {}) },
          headerParams && paramHeadersOf(headerParams, args),
        ),
        naming.uri.bind(naming),
      );
    entries.tools.set(
      name,
      Object.freeze({
        name,
        where: `${naming.where}.${tool.name}`,
        serverClass: part.base.serverClass,
        descriptor,
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
        input: RAW,
        output: { kind: 'relayed' },
        limits: DEFAULT_ARGUMENT_LIMITS,
        // The remote's tasks are its own business: the app's client gets the call's result.
        taskSupport: 'forbidden',
        taskRetries: 0,
        methodName: tool.name,
        plan: plan('tool', name, tool.name, invoke),
        // The remote's header parameters are checked here too (an invalid declaration: not checked, as a client would skip the tool).
        ...(headerParams ? { headerParams } : {}),
      } satisfies ToolDefinition),
    );
  }

  for (const prompt of lists.prompts) {
    const name = served(prompt.name);
    if (!name) continue;
    const invoke: CallPlan['invoke'] = async (_instance, args, ctx) => {
      const result = await call(ctx, 'prompts/get', { name: prompt.name, arguments: args ?? {} });
      return { ...(typeof result.description === 'string' ? { description: result.description } : {}), messages: result.messages };
    };
    const completions = new Map<string, CompletionDefinition>();
    if (lists.completions) {
      for (const argument of prompt.arguments ?? []) {
        completions.set(argument.name, completion(plan, call, 'prompt', argument.name, { type: 'ref/prompt', name: prompt.name }));
      }
    }
    entries.prompts.set(
      name,
      Object.freeze({
        name,
        where: `${naming.where}.${prompt.name}`,
        serverClass: part.base.serverClass,
        descriptor: deepFreeze({ ...prompt, name }),
        completions,
        methodName: prompt.name,
        plan: plan('prompt', name, prompt.name, invoke),
      }),
    );
  }

  for (const resource of lists.resources) {
    const uri = naming.uri(resource.uri);
    if (!uri) {
      entries.skipped.push({ name: resource.uri, reason: 'its URI has no scheme to put the prefix after' });
      continue;
    }
    const invoke: CallPlan['invoke'] = async (_instance, _input, ctx) =>
      servedContents(await call(ctx, 'resources/read', { uri: resource.uri }), naming.uri.bind(naming));
    entries.resources.set(
      uri,
      Object.freeze({
        uri,
        where: `${naming.where}.${resource.uri}`,
        serverClass: part.base.serverClass,
        descriptor: deepFreeze({ ...resource, uri }),
        methodName: resource.uri,
        plan: plan('resource', uri, resource.uri, invoke),
        ...(watch ? { watch: () => watch(resource.uri) } : {}),
      }),
    );
  }

  for (const template of lists.resourceTemplates) {
    // MCP puts no rule on a template's name: any name is served, under the prefix.
    const name = naming.name(template.name);
    const uriTemplate = naming.uri(template.uriTemplate);
    if (!uriTemplate) {
      entries.skipped.push({ name: template.uriTemplate, reason: 'its URI template has no literal scheme' });
      continue;
    }
    if (entries.resourceTemplates.has(name)) {
      entries.skipped.push({ name: template.name, reason: 'the remote lists another template of that name' });
      continue;
    }
    const problem = templateProblem(template.uriTemplate);
    if (problem) {
      entries.skipped.push({ name: template.uriTemplate, reason: `its URI template is not served: ${problem}` });
      continue;
    }
    const parsed = uriTemplates(template.uriTemplate, uriTemplate);
    if (typeof parsed === 'string') {
      entries.skipped.push({ name: template.uriTemplate, reason: `its URI template cannot be used (${parsed})` });
      continue;
    }
    const { remote, served: servedTemplate } = parsed;
    const invoke: CallPlan['invoke'] = async (_instance, variables, ctx) =>
      servedContents(
        await call(ctx, 'resources/read', { uri: remote.expand(variables as Record<string, string>) }),
        naming.uri.bind(naming),
      );
    const completions = new Map<string, CompletionDefinition>();
    if (lists.completions) {
      for (const variable of remote.variableNames) {
        completions.set(
          variable,
          completion(plan, call, 'resourceTemplate', variable, { type: 'ref/resource', uri: template.uriTemplate }),
        );
      }
    }
    entries.resourceTemplates.set(
      name,
      Object.freeze({
        name,
        where: `${naming.where}.${template.name}`,
        serverClass: part.base.serverClass,
        descriptor: deepFreeze({ ...template, name, uriTemplate }),
        template: servedTemplate,
        completions,
        methodName: template.name,
        plan: plan('resourceTemplate', name, template.name, invoke),
        ...(watch
          ? {
              watch: (uri: string) => {
                const variables = servedTemplate.match(uri);
                if (variables) watch(remote.expand(variables as Record<string, string>));
              },
            }
          : {}),
      }),
    );
  }
  return entries;
}

/** The remote's URI template and the one it is served as, or why they cannot be used. */
function uriTemplates(remote: string, served: string): { remote: UriTemplate; served: UriTemplate } | string {
  try {
    return { remote: new UriTemplate(remote), served: new UriTemplate(served) };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A completion of one argument, asked of the remote (its prompt's or template's access is asked first). */
function completion(
  plan: (kind: HandlerKind, name: string, remoteName: string, invoke: CallPlan['invoke']) => CallPlan,
  call: (ctx: Context, method: 'completion/complete', params: Result) => Promise<Result>,
  kind: 'prompt' | 'resourceTemplate',
  argument: string,
  ref: Result,
): CompletionDefinition {
  const invoke: CallPlan['invoke'] = async (_instance, input, ctx) => {
    const { value, context } = input as { value: string; context: { arguments: Record<string, string> } };
    const result = await call(ctx, 'completion/complete', { ref, argument: { name: argument, value }, context });
    return (result.completion as { values?: unknown } | undefined)?.values ?? [];
  };
  // Asked after the prompt's or template's own guards: none of its own, no tags.
  return Object.freeze({ ...plan(kind, argument, argument, invoke), guards: [], interceptors: [], guarded: false, tags: [] });
}

/** A remote tool's `_meta` with its MCP App's `ui://` URI moved under the prefix (the resource moves too). */
function servedToolMeta(meta: Result, uriOf: (uri: string) => string | undefined): Result {
  const ui = meta.ui as Result | undefined;
  const moved = (uri: unknown) => (typeof uri === 'string' ? (uriOf(uri) ?? uri) : uri);
  return {
    ...meta,
    ...(ui && 'resourceUri' in ui ? { ui: { ...ui, resourceUri: moved(ui.resourceUri) } } : {}),
    ...('ui/resourceUri' in meta ? { 'ui/resourceUri': moved(meta['ui/resourceUri']) } : {}),
  };
}

/** A remote tool's result as the app sends it: resource URIs moved under the prefix, reserved `_meta` keys left to the app. */
function servedToolResult(result: Result, uriOf: (uri: string) => string | undefined): Result {
  const content = Array.isArray(result.content) ? (result.content as Result[]).map((block) => servedBlock(block, uriOf)) : [];
  const meta = ownMeta(result._meta);
  return {
    content,
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
    ...(result.isError === true ? { isError: true } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
}

/** A remote read's contents, each URI moved under the prefix. */
function servedContents(result: Result, uriOf: (uri: string) => string | undefined): Result {
  const contents = Array.isArray(result.contents) ? (result.contents as Result[]) : [];
  return { contents: contents.map((item) => (typeof item.uri === 'string' ? { ...item, uri: uriOf(item.uri) ?? item.uri } : item)) };
}

/** `_meta` of a remote's answer without the keys the protocol reserves (the app writes its own). */
function ownMeta(meta: unknown): Result | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const kept = Object.entries(meta).filter(([key]) => !key.startsWith(RESERVED_META));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** A content block with the URI of a remote resource it names moved under the part's prefix. */
function servedBlock(block: Result, uriOf: (uri: string) => string | undefined): Result {
  if (block.type === 'resource_link' && typeof block.uri === 'string') return { ...block, uri: uriOf(block.uri) ?? block.uri };
  const resource = block.resource as Result | undefined;
  if (block.type === 'resource' && typeof resource?.uri === 'string')
    return { ...block, resource: { ...resource, uri: uriOf(resource.uri) ?? resource.uri } };
  return block;
}

/** A remote tool's header parameters, to check as for the app's own; none when its declaration is invalid (clients skip such a tool). */
function remoteHeaderParams(schema: JsonSchema): Pick<ToolDefinition, 'headerParams'> {
  const scan = headerParamsOf(schema);
  return 'params' in scan && scan.params.length > 0 ? { headerParams: Object.freeze(scan.params) } : {};
}
