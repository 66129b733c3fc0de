// Type-only imports: extensions are defined at module load, before any SDK code is needed.
import type { AuthInfo, RequestId } from '@modelcontextprotocol/server';
import type { Constructor } from '../metadata/metadata-args.js';
import type { Context, ContextLogger } from './context.js';
import type { Middleware } from './execution-context.js';
import type { LEGACY_REVISION, MODERN_REVISION } from './revisions.js';

/** A protocol revision Armature serves: 2025-11-25 (sessions) or 2026-07-28 (stateless). */
export type ProtocolRevision = typeof LEGACY_REVISION | typeof MODERN_REVISION;

// The public extension interface, after the five points of SEP-3371 (draft): an extension declares
// its id and settings (registration, capability negotiation), custom JSON-RPC methods, middleware
// around every request, and reads and writes `_meta`. Armature's own extensions use nothing more.

/**
 * The request `_meta` as an extension sees it: its own keys read and written by name. What an
 * extension writes goes into the `_meta` of the result its method answers with, beside what the
 * handler returned there (keys it does not set are kept as they are).
 */
export interface ExtensionMeta {
  /** The request's `_meta[key]` (undefined when absent). */
  get<T = unknown>(key: string): T | undefined;
  /** Sets `_meta[key]` of the result. */
  set(key: string, value: unknown): void;
}

/**
 * What an extension's method handler is handed: who asks, what the client declared for this (or
 * another) extension, the request's `_meta`, its signal and log, and a way to notify the client.
 */
export interface ExtensionContext {
  /** The extension this call is for. */
  readonly extensionId: string;
  /** The protocol revision the request speaks, for a method answered by each revision's rules. */
  readonly revision: ProtocolRevision;
  /**
   * The connection the request came on, to keep a client's state by: the session's id on a
   * 2025-11-25 HTTP session, else an id of the connection (a stdio process, an in-memory pair).
   * A 2026-07-28 request over HTTP has no connection: its id is its own.
   */
  readonly connectionId: string;
  /**
   * The `inputResponses` a 2026-07-28 request carries (answers to a server's input requests, which
   * the SDK lifts out of the params), each an object; undefined when none.
   */
  readonly inputResponses: Readonly<Record<string, unknown>> | undefined;
  /**
   * The settings the client declared for extension `id` (default: this one) in its capabilities'
   * `extensions` (at `initialize` on 2025-11-25, per request on 2026-07-28); undefined when it
   * declared none.
   */
  client(id?: string): Readonly<Record<string, unknown>> | undefined;
  readonly meta: ExtensionMeta;
  /** The authenticated caller (a verified bearer token over HTTP), or undefined. */
  readonly principal: AuthInfo | undefined;
  readonly signal: AbortSignal;
  readonly log: ContextLogger;
  readonly requestId: RequestId;
  /**
   * Sends a notification to the client while the request runs (on 2026-07-28 HTTP, on the
   * request's own stream, the only place the wire allows one). Resolves once handed to the wire.
   */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** The full handler Context (elicitation, sampling, roots, progress). */
  readonly context: Context;
}

/**
 * How the runtime's Context makes an extension's view of itself (`ctx[EXTENSION_VIEW](id)`): the
 * builder plans extension calls with it, below the runtime that implements it. Not public.
 */
export const EXTENSION_VIEW: unique symbol = Symbol('armature.extensionView');

/** A Context that makes extension views (the runtime's does). */
export interface ExtensionViews {
  [EXTENSION_VIEW](id: string): ExtensionContext;
}

/** One custom JSON-RPC request method of an extension. */
export interface ExtensionMethod<P = Record<string, unknown>> {
  /** A DTO class the params are validated into, as a tool's arguments are (`-32602` naming each bad field). */
  readonly params?: Constructor<P>;
  /**
   * Refuse the call with `-32021` (and the extension in `data.requiredCapabilities`) unless the
   * client declared the extension in its capabilities. Default false.
   */
  readonly requiresClientExtension?: boolean;
  /**
   * The call may run until the client cancels it (or disconnects) or the app closes: the app's
   * `timeoutMs` does not apply. For a long-lived request that streams notifications (`ctx.notify`)
   * until `ctx.signal` aborts; everything else (guards, rate limits, params) still does. Bound how
   * many such calls one caller may hold yourself. Default false.
   */
  readonly longLived?: boolean;
  /**
   * The protocol revisions the method is served on (default: both); on another it is answered
   * `-32601`, as a method that does not exist.
   */
  readonly revisions?: readonly ProtocolRevision[];
  /** Answers the call: the returned object is the JSON-RPC result. */
  handle(params: P, ctx: ExtensionContext): unknown;
}

/** A resource an extension serves, added at start-up (`host.resource`). */
export interface ExtensionResource {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** Size in bytes, when known. */
  readonly size?: number;
  readonly _meta?: Record<string, unknown>;
  /** The contents: what a `@Resource` method may return (a string, bytes, contents). */
  read(ctx: ExtensionContext): unknown;
}

/** A resource template an extension serves, added at start-up (`host.resourceTemplate`). */
export interface ExtensionResourceTemplate {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** The contents at `uri`; throw `McpError` (e.g. -32602) when nothing is there. */
  read(uri: string, variables: Readonly<Record<string, string>>, ctx: ExtensionContext): unknown;
}

/** A tool as an extension's `setup` sees it (`host.tool(name)`). */
export interface ExtensionTool {
  readonly name: string;
  /** Where it is declared (`Class.method`), for `host.problem`. */
  readonly where: string;
  /** What `tools/list` advertises for it, before any extension changes it. */
  readonly descriptor: Readonly<Record<string, unknown>>;
  /** The options its decorator recorded (`@Tool({...})`), where an extension finds an option of its own. */
  readonly options: Readonly<Record<string, unknown>>;
  /**
   * `uri` as the app serves it for this tool: a tool mounted under a prefix (`mount('p', ...)`) has
   * its class's resource URIs moved with it. Undefined when `uri` cannot be moved (no scheme).
   */
  servedUri(uri: string): string | undefined;
}

/** A resource of the app as an extension's `setup` sees it (`host.resourceOf(uri)`). */
export interface ExtensionResourceEntry {
  readonly uri: string;
  /** Where it is declared (`Class.method`, or the extension that added it), for `host.problem`. */
  readonly where: string;
  readonly mimeType?: string;
  /** The options its decorator recorded (`@Resource({...})`); empty for an extension's resource. */
  readonly options: Readonly<Record<string, unknown>>;
}

/**
 * What an extension changes of a tool (`host.extendTool`). Clients that negotiated the extension
 * see the change; the others see the tool as it was, or not at all with `onlyForExtensionClients`.
 */
export interface ExtensionToolChange {
  /** Keys added to the tool's `_meta` in `tools/list` (shallowly, beside its own). */
  readonly _meta?: Record<string, unknown>;
  /**
   * Only clients that negotiated the extension see and may call the tool; for the others it is not
   * listed, and a call answers as for an unknown tool. Default false.
   */
  readonly onlyForExtensionClients?: boolean;
}

/** What an extension adds to a resource (`host.extendResource`), for every client. */
export interface ExtensionResourceChange {
  /** Keys added to the resource's `_meta` in `resources/list` and to each of the contents `resources/read` returns. */
  readonly _meta: Record<string, unknown>;
}

/**
 * A `tools/call` as an extension's `onToolCall` sees it, before the tool runs: the tool, the
 * request's params, and the checks an ordinary call makes, for an answer given in its place.
 */
export interface ExtensionToolCall {
  /** The tool's name. */
  readonly name: string;
  /** What `tools/list` advertises for the tool, before any extension changes it. */
  readonly descriptor: Readonly<Record<string, unknown>>;
  /** The request's params as the client sent them: `name`, `arguments`, and any other member (e.g. 2025-11-25's `task`). */
  readonly params: Readonly<Record<string, unknown>>;
  /**
   * Whether the caller may call the tool: its guards, scopes and visibility, asked as an ordinary
   * call asks them. An answer given in place of the tool's asks this first.
   */
  allowed(): Promise<boolean>;
  /** Answers what an ordinary call answers a caller who may not call the tool (the unknown-tool error). */
  refuse(): Promise<never>;
  /** Counts the call against the tool's rate limits (the app's and its own), throwing the rate-limit error past one. */
  count(): Promise<void>;
}

/** Where and under which code a `host.problem` is listed. */
export interface ExtensionProblemOptions {
  /** What the problem is about, e.g. a tool's `where` (default: `extension <id>`). */
  readonly where?: string;
  /** A code of the extension's own, listed with the problem. */
  readonly code?: string;
}

/** What an extension's `setup` may do at start-up. */
export interface ExtensionHost {
  /** The extension being set up. */
  readonly extensionId: string;
  /**
   * Replaces what `capabilities.extensions[id]` advertises (the `settings` given); `undefined`
   * advertises nothing, e.g. when the app has nothing of the extension to serve: its methods are
   * then not served either (`-32601`).
   */
  advertise(settings: Record<string, unknown> | undefined): void;
  /** A tool of the app (its classes', and its mounted parts'), or undefined. */
  tool(name: string): ExtensionTool | undefined;
  /** A resource of the app (its classes', and the extensions' set up before this one), or undefined. */
  resourceOf(uri: string): ExtensionResourceEntry | undefined;
  /** Changes how a tool is advertised to the clients that negotiate the extension (see `ExtensionToolChange`). */
  extendTool(name: string, change: ExtensionToolChange): void;
  /** Adds `_meta` to a resource, in its listing and on what reading it returns. */
  extendResource(uri: string, change: ExtensionResourceChange): void;
  /** Serves a resource (checked with the app's: a URI served twice is a start-up error). */
  resource(resource: ExtensionResource): void;
  /** Serves a resource template. */
  resourceTemplate(template: ExtensionResourceTemplate): void;
  /** What the app serves, as built from its classes (and the extensions set up before this one). */
  readonly catalog: {
    /** The app's server classes (their decorators' records can be read from `getMetadataStorage()`). */
    readonly serverClasses: readonly Constructor[];
    readonly tools: readonly string[];
    readonly resources: readonly string[];
    readonly resourceTemplates: readonly string[];
    readonly prompts: readonly string[];
  };
  /** Reports a start-up problem, listed with the app's others in one `ArmatureBuildError`. */
  problem(message: string, fix: string, options?: ExtensionProblemOptions): void;
}

/** What `defineExtension` takes. */
export interface ExtensionOptions {
  /** A reverse-DNS id with one slash, e.g. `com.example/echo` (SEP-2133 extension identifiers). */
  readonly id: string;
  /**
   * What the server advertises at `capabilities.extensions[id]` (`initialize` on 2025-11-25,
   * `server/discover` on 2026-07-28). Default `{}`.
   */
  readonly settings?: Record<string, unknown>;
  /** Custom request methods, served on every wire and revision like the built-in ones. */
  // biome-ignore lint/suspicious/noExplicitAny: each method names its own params type.
  readonly methods?: Readonly<Record<string, ExtensionMethod<any>>>;
  /** Runs around every request the app handles, after the app's own `middleware`. */
  readonly onRequest?: Middleware;
  /**
   * Runs before each `tools/call` of a tool the caller may see (inside the middleware): returns
   * the answer given in place of the tool's (the JSON-RPC result as it is, e.g. the tasks
   * extension's task), or undefined to let the tool run as an ordinary call, with its guards, rate
   * limits and interceptors. An answer given in its place makes those checks itself (`call.allowed()`,
   * `call.refuse()`, `call.count()`). Extensions are asked in the order they are set up; the first
   * answer wins. Not run for an extension that advertises nothing.
   */
  onToolCall?(call: ExtensionToolCall, ctx: ExtensionContext): unknown;
  /**
   * Whether a client that declared the extension (at `capabilities.extensions[id]`) takes part in
   * it, from the settings it declared: what `requiresClientExtension` and `host.extendTool` go by.
   * Default: every client that declared it. Called per request; a throw counts as no.
   */
  accepts?(declared: Readonly<Record<string, unknown>>): boolean;
  /** Runs once at start-up, after the app's classes are built. */
  setup?(host: ExtensionHost): void;
  /**
   * Runs once when the app closes (`app.close()`, or the end of a graceful shutdown), after its
   * listeners and connections closed and before its state closes; awaited. A throw or rejection
   * is reported (the `extension-close-failed` server event, logged) and the other extensions still close.
   */
  close?(): void | Promise<void>;
}

/** An extension, made by `defineExtension` and given to `createMcpApp(Server, { extensions })`. */
export interface Extension extends ExtensionOptions {
  readonly kind: 'armature.extension';
}

/**
 * Declares an extension. Nothing is checked or run here: `createMcpApp` checks it with the rest of
 * the app (a bad id, a method named like another, a bad params DTO), and reports every problem at
 * once.
 *
 * @example
 * ```ts
 * export const echo = defineExtension({
 *   id: 'com.example/echo',
 *   settings: { version: 1 },
 *   methods: { 'echo/say': { params: SayParams, handle: (params, ctx) => ({ said: params.text }) } },
 * });
 * createMcpApp(Server, { extensions: [echo] });
 * ```
 */
export function defineExtension(options: ExtensionOptions): Extension {
  return Object.freeze({ ...options, kind: 'armature.extension' as const });
}
