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
import { type Result, servedContents, servedToolMeta, servedToolResult, type UriOf } from './served-results.js';
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

const RAW = Object.freeze({ kind: 'raw' as const });

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
  const maker = new RemoteEntryMaker(part, link, lists.completions, watch);
  for (const tool of lists.tools) maker.tool(tool);
  for (const prompt of lists.prompts) maker.prompt(prompt);
  for (const resource of lists.resources) maker.resource(resource);
  for (const template of lists.resourceTemplates) maker.resourceTemplate(template);
  return maker.entries;
}

/** Makes the definitions of one listing of a remote part, and notes what it leaves out and why. */
class RemoteEntryMaker {
  readonly entries: RemoteEntries = {
    tools: new Map(),
    prompts: new Map(),
    resources: new Map(),
    resourceTemplates: new Map(),
    skipped: [],
  };
  private readonly naming: RemotePartDefinition['naming'];
  private readonly uriOf: UriOf;

  constructor(
    private readonly part: RemotePartDefinition,
    private readonly link: RemoteLink,
    private readonly completes: boolean,
    private readonly watch: ((remoteUri: string) => void) | undefined,
  ) {
    this.naming = part.naming;
    this.uriOf = part.naming.uri.bind(part.naming);
  }

  tool(tool: Tool): void {
    const name = this.served(tool.name);
    if (!name) return;
    const { execution: _runsAsTask, ...rest } = tool as Tool & { execution?: unknown };
    const descriptor = deepFreeze({ ...rest, name, ...(tool._meta ? { _meta: servedToolMeta(tool._meta, this.uriOf) } : {}) });
    const { headerParams } = remoteHeaderParams(tool.inputSchema as JsonSchema);
    const invoke: CallPlan['invoke'] = async (_instance, args, ctx) =>
      servedToolResult(
        await this.call(
          ctx,
          'tools/call',
          { name: tool.name, ...(args !== undefined ? { arguments: args } : {}) },
          headerParams && paramHeadersOf(headerParams, args),
        ),
        this.uriOf,
      );
    this.entries.tools.set(
      name,
      Object.freeze({
        name,
        ...this.origin('tool', name, tool.name, invoke),
        descriptor,
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
        input: RAW,
        output: { kind: 'relayed' },
        limits: DEFAULT_ARGUMENT_LIMITS,
        // The remote's tasks are its own business: the app's client gets the call's result.
        taskSupport: 'forbidden',
        taskRetries: 0,
        // The remote's header parameters are checked here too (an invalid declaration: not checked, as a client would skip the tool).
        ...(headerParams ? { headerParams } : {}),
      } satisfies ToolDefinition),
    );
  }

  prompt(prompt: Prompt): void {
    const name = this.served(prompt.name);
    if (!name) return;
    const invoke: CallPlan['invoke'] = async (_instance, args, ctx) => {
      const result = await this.call(ctx, 'prompts/get', { name: prompt.name, arguments: args ?? {} });
      return { ...(typeof result.description === 'string' ? { description: result.description } : {}), messages: result.messages };
    };
    const ref = { type: 'ref/prompt', name: prompt.name };
    this.entries.prompts.set(
      name,
      Object.freeze({
        name,
        ...this.origin('prompt', name, prompt.name, invoke),
        descriptor: deepFreeze({ ...prompt, name }),
        completions: this.completions(
          'prompt',
          (prompt.arguments ?? []).map((argument) => argument.name),
          ref,
        ),
      }),
    );
  }

  resource(resource: Resource): void {
    const { watch } = this;
    const uri = this.naming.uri(resource.uri);
    if (!uri) {
      this.skip(resource.uri, 'its URI has no scheme to put the prefix after');
      return;
    }
    const invoke: CallPlan['invoke'] = async (_instance, _input, ctx) =>
      servedContents(await this.call(ctx, 'resources/read', { uri: resource.uri }), this.uriOf);
    this.entries.resources.set(
      uri,
      Object.freeze({
        uri,
        ...this.origin('resource', uri, resource.uri, invoke),
        descriptor: deepFreeze({ ...resource, uri }),
        ...(watch ? { watch: () => watch(resource.uri) } : {}),
      }),
    );
  }

  resourceTemplate(template: ResourceTemplateType): void {
    const { watch } = this;
    const usable = this.usableTemplate(template);
    if (!usable) return;
    const { name, uriTemplate, remote, served } = usable;
    const invoke: CallPlan['invoke'] = async (_instance, variables, ctx) =>
      servedContents(await this.call(ctx, 'resources/read', { uri: remote.expand(variables as Record<string, string>) }), this.uriOf);
    const ref = { type: 'ref/resource', uri: template.uriTemplate };
    this.entries.resourceTemplates.set(
      name,
      Object.freeze({
        name,
        ...this.origin('resourceTemplate', name, template.name, invoke),
        descriptor: deepFreeze({ ...template, name, uriTemplate }),
        template: served,
        completions: this.completions('resourceTemplate', remote.variableNames, ref),
        ...(watch
          ? {
              watch: (uri: string) => {
                const variables = served.match(uri);
                if (variables) watch(remote.expand(variables as Record<string, string>));
              },
            }
          : {}),
      }),
    );
  }

  /**
   * A template's served name and URI template with both parsed, or undefined (reported) when it
   * cannot be served. MCP puts no rule on a template's name: any name is served, under the prefix.
   */
  private usableTemplate(
    template: ResourceTemplateType,
  ): { name: string; uriTemplate: string; remote: UriTemplate; served: UriTemplate } | undefined {
    const name = this.naming.name(template.name);
    const uriTemplate = this.naming.uri(template.uriTemplate);
    if (!uriTemplate) return this.skip(template.uriTemplate, 'its URI template has no literal scheme');
    if (this.entries.resourceTemplates.has(name)) return this.skip(template.name, 'the remote lists another template of that name');
    const problem = templateProblem(template.uriTemplate);
    if (problem) return this.skip(template.uriTemplate, `its URI template is not served: ${problem}`);
    const parsed = uriTemplates(template.uriTemplate, uriTemplate);
    if (typeof parsed === 'string') return this.skip(template.uriTemplate, `its URI template cannot be used (${parsed})`);
    return { name, uriTemplate, ...parsed };
  }

  /** What every entry holds of the remote's `remoteName`: where it comes from, and its plan. */
  private origin(kind: HandlerKind, name: string, remoteName: string, invoke: CallPlan['invoke']) {
    return {
      where: `${this.naming.where}.${remoteName}`,
      serverClass: this.part.base.serverClass,
      methodName: remoteName,
      plan: this.plan(kind, name, remoteName, invoke),
    };
  }

  /** The plan of a remote entry: the part's shared plan, forwarding with `invoke`. */
  private plan(kind: HandlerKind, name: string, remoteName: string, invoke: CallPlan['invoke']): CallPlan {
    return Object.freeze({
      ...this.part.base,
      kind,
      name,
      where: `${this.naming.where}.${remoteName}`,
      methodName: remoteName,
      input: RAW,
      needsInstance: false,
      invoke,
    });
  }

  private call(ctx: Context, method: Parameters<typeof forward>[3], params: Result, headers?: Record<string, string>): Promise<Result> {
    return forward(this.link, this.naming, ctx, method, params, headers);
  }

  /** The served name of a tool or prompt, or undefined (reported) when the prefixed name is not a valid one. */
  private served(name: string): string | undefined {
    const key = this.naming.name(name);
    if (NAME_PATTERN.test(key)) return key;
    return this.skip(name, `"${key}" is not a valid name (1-128 letters, digits, _ . -)`);
  }

  /** Notes what is left out and why; undefined, for the caller to return. */
  private skip(name: string, reason: string): undefined {
    this.entries.skipped.push({ name, reason });
    return undefined;
  }

  /** The completions of a prompt's arguments or a template's variables, when the remote completes. */
  private completions(kind: 'prompt' | 'resourceTemplate', names: readonly string[], ref: Result): Map<string, CompletionDefinition> {
    const completions = new Map<string, CompletionDefinition>();
    if (this.completes) for (const argument of names) completions.set(argument, this.completion(kind, argument, ref));
    return completions;
  }

  /** A completion of one argument, asked of the remote (its prompt's or template's access is asked first). */
  private completion(kind: 'prompt' | 'resourceTemplate', argument: string, ref: Result): CompletionDefinition {
    const invoke: CallPlan['invoke'] = async (_instance, input, ctx) => {
      const { value, context } = input as { value: string; context: { arguments: Record<string, string> } };
      const result = await this.call(ctx, 'completion/complete', { ref, argument: { name: argument, value }, context });
      return (result.completion as { values?: unknown } | undefined)?.values ?? [];
    };
    // Asked after the prompt's or template's own guards: none of its own, no tags.
    return Object.freeze({ ...this.plan(kind, argument, argument, invoke), guards: [], interceptors: [], guarded: false, tags: [] });
  }
}

/** The remote's URI template and the one it is served as, or why they cannot be used. */
function uriTemplates(remote: string, served: string): { remote: UriTemplate; served: UriTemplate } | string {
  try {
    return { remote: new UriTemplate(remote), served: new UriTemplate(served) };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A remote tool's header parameters, to check as for the app's own; none when its declaration is invalid (clients skip such a tool). */
function remoteHeaderParams(schema: JsonSchema): Pick<ToolDefinition, 'headerParams'> {
  const scan = headerParamsOf(schema);
  return 'params' in scan && scan.params.length > 0 ? { headerParams: Object.freeze(scan.params) } : {};
}
