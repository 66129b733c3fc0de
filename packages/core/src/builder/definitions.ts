import type { Prompt, Resource, ResourceTemplateType as ResourceTemplateDescriptor, Tool, UriTemplate } from '@modelcontextprotocol/server';
import type { Context } from '../context/context.js';
import type { Guard, Interceptor, Middleware } from '../context/execution-context.js';
import type { ExtensionContext, ExtensionHost, ExtensionToolCall, ProtocolRevision } from '../context/extension.js';
import type { ArgumentLimits, Constructor, HandlerKind, JsonSchema, McpServerOptions, TaskStart } from '../metadata/metadata-args.js';
import type { HeaderParam } from '../schema/header-params.js';
import type { JsonValidator } from '../validation/json-schema-validator.js';
import type { InputPlan } from '../validation/prepare-arguments.js';
import type { RateLimitPlan } from './rate-limit-plans.js';
import type { RemoteServerRef } from './remote-server.js';

/**
 * How a guard or interceptor is obtained per call, decided at start-up: from the call's DI scope
 * (a registered or request-scoped service), or the one instance made at start-up.
 */
export type ProviderPlan<T> =
  | { readonly from: 'scope'; readonly token: Constructor<T>; readonly label: string }
  | { readonly from: 'instance'; readonly instance: T; readonly label: string };

/**
 * Everything the executor needs to run one handler, built and frozen at start-up: who may call it
 * (app, class and method guards merged, app-level first; OAuth scopes), how its arguments are
 * checked, which interceptors wrap it, and how the method is invoked. The executor reads only this.
 */
export interface CallPlan {
  /** The handler's kind; `method` for an extension's custom method. */
  readonly kind: HandlerKind | 'method';
  /** The tool or prompt name, the resource URI, or the template name. */
  readonly name: string;
  /** `Class.method`, for messages. */
  readonly where: string;
  readonly serverClass: Constructor;
  readonly methodName: string;
  readonly guards: readonly ProviderPlan<Guard>[];
  readonly interceptors: readonly ProviderPlan<Interceptor>[];
  /** OAuth scopes the caller's token must carry. */
  readonly scopes: readonly string[];
  /** True when guards or scopes apply (a list or call must ask them). */
  readonly guarded: boolean;
  /** The rate limits a call counts against, each its own count. */
  readonly rateLimits: readonly RateLimitPlan[];
  /** Tags (the mounted part's, then the decorator's): what `showFor`/`hideFor` and `hiddenTags` select by. */
  readonly tags: readonly string[];
  readonly input: InputPlan;
  /** False when the handler needs no server instance (a completion function). */
  readonly needsInstance: boolean;
  /** Calls the method with the prepared input (or none) and the Context. */
  readonly invoke: (instance: unknown, input: unknown, ctx: Context) => unknown;
}

/** How a tool's return value is checked before it is sent as `structuredContent`. */
export type OutputDefinition =
  | { readonly kind: 'none' }
  | { readonly kind: 'dto'; readonly dto: Constructor }
  | { readonly kind: 'schema'; readonly validate: JsonValidator }
  /** A remote server's tool: the method returns the remote's result, checked there, and it is sent as it is. */
  | { readonly kind: 'relayed' };

/** How a tool's arguments are turned into what the method receives. */
export type InputDefinition = InputPlan;

/** A tool, built and frozen at start-up. The runtime reads only these. */
export interface ToolDefinition {
  readonly name: string;
  /** `Class.method`, for messages. */
  readonly where: string;
  readonly serverClass: Constructor;
  /** What `tools/list` advertises for this tool. */
  readonly descriptor: Readonly<Tool>;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  readonly input: InputDefinition;
  readonly output: OutputDefinition;
  readonly limits: Readonly<Required<ArgumentLimits>>;
  /** Whether the tool may (`optional`), must (`required`) or may not (`forbidden`) run as a task. */
  readonly taskSupport: TaskSupport;
  /** How many times its task may run again on another instance (`task: { retries }`); 0 without. */
  readonly taskRetries: number;
  /** Present when a call becomes a task where the handler calls `ctx.continueAsTask()` (`task: { start }`), not before it runs. */
  readonly taskStart?: Exclude<TaskStart, 'call'>;
  readonly methodName: string;
  readonly plan: CallPlan;
  /** What extensions changed of it (`host.extendTool`), each seen only by the clients that negotiate it. */
  readonly extended?: ToolExtensions;
  /** Parameters mirrored in `Mcp-Param-*` headers (`x-mcp-header`), checked on 2026-07-28 HTTP calls; absent when none. */
  readonly headerParams?: readonly HeaderParam[];
}

/** How a client negotiates an extension: it declared the extension, and the extension accepts what it declared. */
export interface NegotiatedExtension {
  readonly id: string;
  readonly accepts?: (declared: Readonly<Record<string, unknown>>) => boolean;
}

/** One extension's change of a tool (`host.extendTool`). */
export interface ToolChange {
  readonly extension: NegotiatedExtension;
  /** Added to the descriptor's `_meta` for the clients that negotiate the extension. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** Hidden from (and not callable by) the clients that do not. */
  readonly exclusive: boolean;
}

/**
 * What extensions changed of a tool: `descriptor` is what a client negotiating them all sees,
 * `plain` what a client negotiating none sees (the tool as its class declared it).
 */
export interface ToolExtensions {
  readonly changes: readonly ToolChange[];
  readonly plain: Readonly<Tool>;
}

/** `execution.taskSupport` of a tool (2025-11-25 tasks utility). */
export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** A completion source as a plan: run by the same executor, guarded by its prompt or template. */
export type CompletionDefinition = CallPlan;

/** A resource with a fixed URI. */
export interface ResourceDefinition {
  readonly uri: string;
  readonly where: string;
  readonly serverClass: Constructor;
  readonly descriptor: Readonly<Resource>;
  readonly methodName: string;
  readonly plan: CallPlan;
  /** `_meta` an extension added (`host.extendResource`), put on the contents `resources/read` returns too. */
  readonly contentMeta?: Readonly<Record<string, unknown>>;
  /** A remote server's resource: asks the remote to tell of changes to it, once a client subscribes. */
  readonly watch?: (uri: string) => void;
}

/** Resources addressed by a URI template; variables validated into `params`. */
export interface ResourceTemplateDefinition {
  readonly name: string;
  readonly where: string;
  readonly serverClass: Constructor;
  readonly descriptor: Readonly<ResourceTemplateDescriptor>;
  readonly template: UriTemplate;
  readonly params?: Constructor;
  readonly completions: ReadonlyMap<string, CompletionDefinition>;
  readonly methodName: string;
  readonly plan: CallPlan;
  /** A remote server's template: asks the remote to tell of changes to `uri`, once a client subscribes. */
  readonly watch?: (uri: string) => void;
}

/** A prompt; arguments validated into `args`. */
export interface PromptDefinition {
  readonly name: string;
  readonly where: string;
  readonly serverClass: Constructor;
  readonly descriptor: Readonly<Prompt>;
  readonly args?: Constructor;
  readonly completions: ReadonlyMap<string, CompletionDefinition>;
  readonly methodName: string;
  readonly plan: CallPlan;
}

/** How a mounted part (`MountedPart`) serves names and URIs under its prefix. */
export interface PartNaming {
  readonly prefix: string;
  /** `mount('prefix')`, for messages. */
  readonly where: string;
  name(name: string): string;
  uri(uri: string): string | undefined;
}

/** What every plan made for a remote part's entries shares: the app's and the part's guards, interceptors, rate limits and tags. */
export type RemotePlanBase = Pick<CallPlan, 'serverClass' | 'guards' | 'interceptors' | 'scopes' | 'guarded' | 'rateLimits' | 'tags'>;

/**
 * A remote MCP server mounted in the app (`mount(prefix, remoteServer(...))`). Its entries are
 * only known once it answers, so they are made when it connects (and when its lists change), each
 * with a plan made from `base`.
 */
export interface RemotePartDefinition {
  readonly naming: PartNaming;
  readonly remote: RemoteServerRef;
  readonly base: RemotePlanBase;
}

/** Everything one app serves, built and frozen at start-up. */
export interface AppDefinition {
  readonly info: Readonly<Pick<McpServerOptions, 'name' | 'version' | 'title' | 'icons'>>;
  readonly instructions?: string;
  readonly serverClasses: readonly Constructor[];
  readonly requestScoped: readonly Constructor[];
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  /** The `tools/list` payload, in declaration order. */
  readonly toolList: readonly Tool[];
  readonly resources: ReadonlyMap<string, ResourceDefinition>;
  /** In declaration order: the first template matching a URI serves it. */
  readonly resourceTemplates: readonly ResourceTemplateDefinition[];
  readonly prompts: ReadonlyMap<string, PromptDefinition>;
  /** Remote servers mounted in the app, whose entries join the catalogs when they connect. */
  readonly remoteParts: readonly RemotePartDefinition[];
  /** The extensions (`createMcpApp(Server, { extensions })`), in the order given. */
  readonly extensions: readonly ExtensionDefinition[];
}

/** An extension's custom method: its plan (under the app's guards and limits) and how it is gated. */
export interface ExtensionMethodDefinition {
  readonly name: string;
  /** Refused with -32021 unless the client declared the extension. */
  readonly requiresClientExtension: boolean;
  /** Runs without the app's timeout (`longLived: true`). */
  readonly longLived: boolean;
  /** The revisions it is served on (`revisions`); undefined for both. */
  readonly revisions?: readonly ProtocolRevision[];
  readonly plan: CallPlan;
}

/** An extension, checked at start-up (`defineExtension`). */
export interface ExtensionDefinition {
  readonly id: string;
  /** `extension <id>`, for messages. */
  readonly where: string;
  /** What `capabilities.extensions[id]` advertises; undefined when its setup advertises nothing. */
  readonly settings?: Readonly<Record<string, unknown>>;
  readonly methods: ReadonlyMap<string, ExtensionMethodDefinition>;
  readonly onRequest?: Middleware;
  readonly onToolCall?: (call: ExtensionToolCall, ctx: ExtensionContext) => unknown;
  readonly setup?: (host: ExtensionHost) => void;
  readonly accepts?: (declared: Readonly<Record<string, unknown>>) => boolean;
  readonly close?: () => void | Promise<void>;
}
