import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Constructor } from '../metadata/metadata-args.js';
import type { Context } from './context.js';

/** What a guard, interceptor or error filter learns about the call it is looking at. */
export interface ExecutionContext {
  /** `tool`, `resource`, `resourceTemplate`, `prompt`, or `method` for an extension's custom method (`defineExtension`). */
  readonly kind: 'tool' | 'resource' | 'resourceTemplate' | 'prompt' | 'method';
  /** The tool or prompt name, the resource URI, or the template name. */
  readonly name: string;
  /** `list` while filtering `tools/list` and friends (no arguments yet), `call` for the call itself. */
  readonly phase: 'list' | 'call';
  readonly serverClass: Constructor;
  readonly methodName: string;
  /** The request's Context (signal, meta, principal, log). */
  readonly context: Context;
  /** The authenticated caller, when the HTTP endpoint verified a bearer token. */
  readonly principal?: AuthInfo;
  /**
   * The validated arguments (DTO instance) for interceptors and error filters. Guards run before
   * validation and see none: a caller who may not use a tool learns nothing about its arguments.
   */
  readonly args?: unknown;
}

/**
 * Decides whether a call may go ahead. A guard that says no also hides the tool, resource or
 * prompt from the caller's lists (it runs with `phase: 'list'` and no arguments), and a denied
 * call is answered exactly like an unknown one, so nothing leaks about what exists.
 *
 * @example
 * ```ts
 * class AdminOnly implements Guard {
 *   canActivate({ principal }: ExecutionContext) { return principal?.extra?.role === 'admin'; }
 * }
 * ```
 */
export interface Guard {
  canActivate(context: ExecutionContext): boolean | Promise<boolean>;
}

/**
 * Wraps a call: runs code before and after `next()`, may change the result, or answer without
 * calling `next()` at all (a cache, say). `next(args)` hands the inner interceptors and the method
 * other arguments instead of `context.args` (a transform of the validated input, as a Nest pipe
 * does); they are not validated again.
 *
 * @example
 * ```ts
 * class Timing implements Interceptor {
 *   async intercept(context: ExecutionContext, next: () => Promise<unknown>) {
 *     const started = performance.now();
 *     try { return await next(); } finally { metrics.observe(context.name, performance.now() - started); }
 *   }
 * }
 * ```
 */
export interface Interceptor {
  intercept(context: ExecutionContext, next: (args?: unknown) => Promise<unknown>): Promise<unknown>;
}

/** A guard or interceptor given as a class (resolved through DI per call) or as an instance. */
export type Provided<T> = Constructor<T> | T;

/** What app-level middleware sees of each request Armature handles. */
export interface McpRequestInfo {
  /** The JSON-RPC method, e.g. `tools/call`. */
  readonly method: string;
  /** The request params as received. */
  readonly params: Readonly<Record<string, unknown>> | undefined;
  readonly context: Context;
}

/**
 * Runs around every request Armature handles (tools, resources, prompts, completions, lists).
 * An exception thrown by middleware itself is answered as JSON-RPC `-32603` (seed rule); tool
 * failures inside `next()` stay tool results.
 *
 * @example
 * ```ts
 * const logRequests: Middleware = async (request, next) => {
 *   const started = Date.now();
 *   try { return await next(); } finally { console.error(request.method, Date.now() - started, 'ms'); }
 * };
 * createMcpApp(Server, { middleware: [logRequests] });
 * ```
 */
export type Middleware = (request: McpRequestInfo, next: () => Promise<unknown>) => Promise<unknown>;

/**
 * The one place to map errors: called with anything a handler (or interceptor) threw, it returns
 * (or throws) what to answer with instead: a `ToolError` for a tool error the model should read,
 * an `McpError` for a JSON-RPC error, or the error itself to keep the default.
 */
export type ErrorFilter = (error: unknown, context: ExecutionContext) => unknown;
