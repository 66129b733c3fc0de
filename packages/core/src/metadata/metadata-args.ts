import type { McpUiResourceMeta, McpUiToolVisibility } from '@modelcontextprotocol/ext-apps';
import type { Annotations, Icon, ToolAnnotations } from '@modelcontextprotocol/server';

/** Any class constructor. */
// biome-ignore lint/suspicious/noExplicitAny: constructors take arbitrary arguments
export type Constructor<T = unknown> = abstract new (...args: any[]) => T;

/** A JSON Schema object, as written by hand (the raw escape hatch) or produced from a DTO. */
export type JsonSchema = Record<string, unknown>;

/** What users pass to `@McpServer(...)`. */
export interface McpServerOptions {
  /** Machine name of the server, sent as `serverInfo.name`. */
  name: string;
  /** Version sent as `serverInfo.version`. */
  version: string;
  /** Human-readable name shown by clients. */
  title?: string;
  /** Instructions sent to the client at initialization (how to use this server's tools). */
  instructions?: string;
  /** Optional icons advertised in `serverInfo`. */
  icons?: Icon[];
}

/** Limits applied to tool arguments before any conversion (see `ArgumentLimits`). */
export interface ArgumentLimits {
  /** Deepest nesting of objects and arrays. Default 32. */
  maxDepth?: number;
  /** Most members of one object. Default 1,000. */
  maxObjectKeys?: number;
  /** Most items of one array. Default 10,000. */
  maxArrayLength?: number;
  /** Most values (object members + array items) in the whole payload. Default 20,000. */
  maxNodes?: number;
  /** Longest string value or key, in UTF-16 code units. Default 1,048,576. */
  maxStringLength?: number;
}

/** Tags group handlers for run-time visibility (`app.tools.showFor(target, { tags })`). */
export interface TaggedOptions {
  /** E.g. `['admin']`: hidden from everyone when the app option `hiddenTags` names one of them, until shown. */
  tags?: string[];
}

/** What users pass to `@Tool(...)`. */
export interface ToolOptions extends TaggedOptions {
  /** Tool name, 1-128 of `[A-Za-z0-9_.-]`. Defaults to the method name. */
  name?: string;
  /** Human-readable name shown by clients. */
  title?: string;
  /** What the tool does and when to use it. The model reads this text. */
  description: string;
  /** Hints for clients: `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`. */
  annotations?: ToolAnnotations;
  /** The input DTO class. Normally inferred from the method's first parameter type. */
  input?: () => Constructor;
  /** The output DTO class: advertised as `outputSchema`, the return value is validated against it. */
  output?: () => Constructor;
  /** Raw JSON Schema for the arguments (escape hatch): the method receives the validated plain JSON. */
  inputSchema?: JsonSchema;
  /** Raw JSON Schema for the structured result (escape hatch). */
  outputSchema?: JsonSchema;
  /** Optional icons for the tool. */
  icons?: Icon[];
  /** Extra `_meta` advertised with the tool in `tools/list`. */
  _meta?: Record<string, unknown>;
  /** Per-tool overrides of the argument limits. */
  limits?: ArgumentLimits;
  /**
   * Whether a client may run the tool as an MCP task (2025-11-25 tasks utility): `'optional'`
   * lets the client choose, `'required'` refuses an ordinary call. Advertised as
   * `execution.taskSupport`; omitted, the tool runs only as an ordinary call. See docs/tasks.md.
   */
  task?: TaskSupportOption | ToolTaskOptions;
  /**
   * The tool's MCP App (the `io.modelcontextprotocol/ui` extension): the `ui://` resource a host
   * renders for it, served by an `@AppResource` of the app. See docs/mcp-apps.md.
   */
  ui?: ToolUiOptions;
}

/** `@Tool({ ui })`: the app a host renders for the tool, and who may call the tool. */
export interface ToolUiOptions {
  /** The `ui://` URI of the HTML app, served by an `@AppResource` (or a `@Resource` with the MCP App MIME type). */
  resource: string;
  /**
   * Who may call the tool: `'model'` (listed for the model) and/or `'app'` (callable from the
   * app). Default both; `['app']` hides it from the model and from clients without MCP Apps.
   */
  visibility?: McpUiToolVisibility[];
}

/** How a tool may run as a task: `@Tool({ task: 'optional' | 'required' })`. */
export type TaskSupportOption = 'optional' | 'required';

/** `@Tool({ task: { support, retries } })`: how a tool runs as a task, with its retries. */
export interface ToolTaskOptions {
  /** As `task: 'optional' | 'required'`. */
  support: TaskSupportOption;
  /**
   * How many times the task runs again, on another instance, when the instance running it stops
   * before it ends (with a shared state: `redisState`). Tasks then run at least once, not exactly
   * once: use `ctx.idempotencyKey` and `ctx.attempt`. Whole number from 0 to 10; default 0 (a task
   * whose instance stops is failed once its lease lapses).
   */
  retries?: number;
  /**
   * When the call becomes a task. `'call'` (the default): as soon as it is called as one, before
   * the handler runs. `'continueAsTask'`: the handler first runs as an ordinary call (on 2026-07-28
   * it asks its questions in the call's `input_required` rounds) and the call becomes a task where
   * the handler calls `await ctx.continueAsTask()`; the rest runs in the background. Only a
   * 2026-07-28 request declaring the tasks extension can be answered with a task mid-way; every
   * other request is served as with `'call'`. See docs/tasks.md.
   */
  start?: TaskStart;
}

/** `@Tool({ task: { start } })`: when a call of the tool becomes a task. */
export type TaskStart = 'call' | 'continueAsTask';

/** What users pass to `@Field(...)` on a DTO property. */
export interface FieldOptions {
  /** Description of the property, advertised in the JSON Schema (the model reads it). */
  description?: string;
  /** Short title of the property. */
  title?: string;
  /** Example values, advertised as `examples`. */
  examples?: unknown[];
  /** Marks the property as deprecated in the schema. */
  deprecated?: boolean;
  /**
   * Mirrors the parameter in an HTTP header (SEP-2243, 2026-07-28): advertised as `x-mcp-header`,
   * the client sends the value as `Mcp-Param-{header}` too, so that gateways can route on it, and
   * a request whose header disagrees with its body is refused (400, -32020). For string, integer
   * and boolean properties of a tool's input; a name unique in the tool, without spaces.
   */
  header?: string;
  /**
   * For array properties of primitives (`string[]`, `number[]`): the item type, since TypeScript
   * reflects only `Array`. Nested DTO arrays use class-transformer's `@Type(() => Dto)` instead.
   */
  items?: 'string' | 'number' | 'integer' | 'boolean';
}

/** What users pass to `@Resource(...)`: a resource with a fixed URI. */
export interface ResourceOptions extends TaggedOptions {
  /** The resource's URI, e.g. `file:///config.json` or `test://static-text`. */
  uri: string;
  /** Machine name of the resource. */
  name: string;
  title?: string;
  description?: string;
  /** MIME type of the contents, e.g. `text/plain` or `image/png`. */
  mimeType?: string;
  /** Size in bytes, if known. */
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** MCP App metadata (CSP, permissions, domain, border) of a `ui://` resource: set by `@AppResource`. */
  ui?: McpUiResourceMeta;
}

/**
 * What users pass to `@AppResource(...)`: the HTML of an MCP App, served under a `ui://` URI with
 * the extension's MIME type (`text/html;profile=mcp-app`) and its security metadata.
 */
export interface AppResourceOptions extends McpUiResourceMeta {
  /** The app's URI, e.g. `ui://weather/view.html`. */
  uri: string;
  /** Machine name of the resource. */
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** What users pass to `@ResourceTemplate(...)`: resources addressed by an RFC 6570 URI template. */
export interface ResourceTemplateOptions extends TaggedOptions {
  /** The URI template, e.g. `users://{id}/profile`. Its variables arrive as the params DTO. */
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** The params DTO class. Normally inferred from the method's first parameter type. */
  params?: () => Constructor;
}

/** What users pass to `@Prompt(...)`. */
export interface PromptOptions extends TaggedOptions {
  /** Prompt name, 1-128 of `[A-Za-z0-9_.-]`. Defaults to the method name. */
  name?: string;
  title?: string;
  /** What the prompt is for. */
  description: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** The arguments DTO class. Normally inferred from the method's first parameter type. */
  args?: () => Constructor;
}

/** Where completion candidates for a prompt argument or template variable come from. */
export type CompletionSource =
  /** The name of a method of the server class: `(value, context) => string[] | Promise<string[]>`. */
  | string
  /** A function: `(value, context) => string[] | Promise<string[]>`. */
  | ((value: string, context: CompletionRequestContext) => readonly string[] | Promise<readonly string[]>);

/** What a completion source learns about the request. */
export interface CompletionRequestContext {
  /** The argument being completed. */
  readonly argument: string;
  /** Values the client already has for the other arguments. */
  readonly arguments: Readonly<Record<string, string>>;
}

/** A `@McpServer` class as written down at decoration time. */
export interface ServerMetadataArgs {
  readonly target: Constructor;
  readonly options: Readonly<McpServerOptions>;
}

/** What each handler-method decorator records. */
export type HandlerKind = 'tool' | 'resource' | 'resourceTemplate' | 'prompt';

export interface HandlerOptionsByKind {
  tool: ToolOptions;
  resource: ResourceOptions;
  resourceTemplate: ResourceTemplateOptions;
  prompt: PromptOptions;
}

/** A decorated handler method (`@Tool`, `@Resource`, `@ResourceTemplate`, `@Prompt`) as written down at decoration time. */
export interface HandlerMetadataArgs<K extends HandlerKind = HandlerKind> {
  readonly kind: K;
  readonly target: Constructor;
  readonly methodName: string;
  readonly options: Readonly<HandlerOptionsByKind[K]>;
  /** `design:paramtypes` as reflected at decoration time; `undefined` when the compiler emitted none. */
  readonly paramTypes: readonly unknown[] | undefined;
  /** How many parameters the method declares (`Function.length`), to tell a missing DTO type from no DTO. */
  readonly declaredParamCount: number;
  /** True when the decorator was put on a static method (reported by the builder). */
  readonly isStatic: boolean;
}

/** A `@Tool` method as written down at decoration time. */
export type ToolMetadataArgs = HandlerMetadataArgs<'tool'>;

/** A `@Complete` DTO property as written down at decoration time. */
export interface CompletionMetadataArgs {
  readonly target: Constructor;
  readonly propertyName: string;
  readonly source: CompletionSource;
}

/** A `@Field` property as written down at decoration time. */
export interface FieldMetadataArgs {
  readonly target: Constructor;
  readonly propertyName: string;
  readonly options: Readonly<FieldOptions>;
}

/** `@UseGuards` / `@UseInterceptors` / `@RequireScopes` / `@RateLimit` on a class (`methodName` undefined) or a method. */
export interface PipelineMetadataArgs {
  readonly target: Constructor;
  readonly methodName: string | undefined;
  readonly guards?: readonly unknown[];
  readonly interceptors?: readonly unknown[];
  readonly scopes?: readonly string[];
  /** As written: the builder checks them. */
  readonly rateLimits?: readonly unknown[];
}
