import type { ExecutionContext as ArmatureExecution, Context } from '@armature/core';

/** The MCP call a guard, interceptor or filter is looking at: `request.mcp`. */
export interface McpCall {
  /** `tool`, `resource`, `resourceTemplate`, `prompt`, or `method` for an extension's method (`defineExtension`). */
  readonly kind: 'tool' | 'resource' | 'resourceTemplate' | 'prompt' | 'method';
  /** The tool or prompt name, the resource URI, or the template name. */
  readonly name: string;
  /** `list` while filtering `tools/list` and friends, `call` for the call itself. */
  readonly phase: 'list' | 'call';
  /**
   * The validated arguments (the DTO instance) for interceptors and filters; undefined for guards,
   * which run before validation (as Armature guards do).
   */
  readonly args: unknown;
  /** The call's Armature Context (signal, meta, log, progress, elicitation). */
  readonly context: Context;
  /** The caller Armature's own HTTP auth verified (bearer token), if any. */
  readonly principal: Context['principal'];
}

/**
 * What Nest's `REQUEST` holds while a tool, resource or prompt runs over MCP, and what
 * `switchToHttp().getRequest()` returns to its guards and interceptors: the HTTP request of the
 * MCP POST (Express's or Fastify's, read through: `headers`, `ip`, `user`...) with the call in
 * `mcp`. Over stdio there is no HTTP request: `headers` is empty. Each call has its own object, so
 * what a guard sets on it (Passport's `request.user`) is what the tool's request-scoped providers see.
 *
 * @example
 * ```ts
 * @Injectable({ scope: Scope.REQUEST })
 * class Audit {
 *   constructor(@Inject(REQUEST) request: McpRequest | Request) {
 *     this.channel = isMcpRequest(request) ? `mcp ${request.context.requestId}` : 'http';
 *   }
 * }
 * ```
 */
export type McpRequest<Http extends object = { readonly headers: Record<string, string | string[] | undefined> }> = Http & {
  readonly transport: 'mcp';
  /**
   * The call being guarded, intercepted or filtered: what it is, its phase and arguments. Set
   * for guards, interceptors and exception filters (a provider built before them sees none).
   */
  readonly mcp?: McpCall;
  /** The call's Armature Context (also `mcp.context`). */
  readonly context: Context;
  /** The caller Armature's own HTTP auth verified, if any (also `mcp.principal`). */
  readonly principal: Context['principal'];
  /** What authentication put on the request (Passport's user), else Armature's principal. */
  user?: unknown;
};

/** True when `request` (Nest's `REQUEST`, or a guard's `getRequest()`) is serving an MCP call rather than a REST one. */
export function isMcpRequest(request: unknown): request is McpRequest {
  return typeof request === 'object' && request !== null && (request as { transport?: unknown }).transport === 'mcp';
}

/** The MCP call of a request, or undefined for a REST request. */
export function mcpCallOf(request: unknown): McpCall | undefined {
  return isMcpRequest(request) ? request.mcp : undefined;
}

/** Stands for the HTTP request over stdio: no headers, so header-reading guards deny. */
const NO_HTTP_REQUEST = Object.freeze({ headers: Object.freeze({}) });

/** `McpRequest` as the bridges hold it: `mcp` is theirs to set. */
export type MutableMcpRequest = McpRequest & { mcp?: McpCall };

/**
 * The `REQUEST` object of one MCP call: a view of the HTTP request (its own properties and
 * prototype read through, so Express's `req.get()`/`ip` and Fastify's getters work), on which a
 * guard may set `user`. The bridges set `mcp` before each guard, interceptor or filter chain
 * (they run one after another within a call).
 */
export function mcpRequestOf(context: Context, http: object | undefined): MutableMcpRequest {
  const principal = context.principal;
  const inherited = (http as { user?: unknown } | undefined)?.user;
  return Object.create(http ?? NO_HTTP_REQUEST, {
    transport: { value: 'mcp', enumerable: true },
    context: { value: context },
    principal: { value: principal, enumerable: true },
    mcp: { value: undefined, writable: true },
    user: { value: inherited ?? principal, writable: true, enumerable: true, configurable: true },
  });
}

/** The `request.mcp` of what Armature is guarding, intercepting or filtering. */
export function mcpCallOfExecution(execution: ArmatureExecution): McpCall {
  return Object.freeze({
    kind: execution.kind,
    name: execution.name,
    phase: execution.phase,
    args: execution.args,
    context: execution.context,
    principal: execution.context.principal,
  });
}
