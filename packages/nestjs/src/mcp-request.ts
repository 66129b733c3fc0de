import type { Context } from '@armature/core';

/**
 * What Nest's `REQUEST` holds while a tool, resource or prompt runs over MCP. Request-scoped
 * providers serve REST and MCP alike: `isMcpRequest(request)` tells which one they are serving.
 *
 * @example
 * ```ts
 * @Injectable({ scope: Scope.REQUEST })
 * class Audit {
 *   constructor(@Inject(REQUEST) request: McpRequest | Request) {
 *     this.channel = isMcpRequest(request) ? 'mcp' : 'http';
 *   }
 * }
 * ```
 */
export interface McpRequest {
  readonly transport: 'mcp';
  /** The call's Armature Context (signal, meta, log, progress, elicitation). */
  readonly context: Context;
  /** The caller the HTTP endpoint authenticated (bearer token), if any; also under `user`. */
  readonly principal: Context['principal'];
  readonly user: Context['principal'];
}

/** What a Nest guard or interceptor sees as `switchToHttp().getRequest()` (and `getArgs()[0]`) for an MCP call. */
export interface McpCall extends McpRequest {
  /** `tool`, `resource`, `resourceTemplate` or `prompt`. */
  readonly kind: 'tool' | 'resource' | 'resourceTemplate' | 'prompt';
  /** The tool or prompt name, the resource URI, or the template name. */
  readonly name: string;
  /** `list` while filtering `tools/list` and friends, `call` for the call itself. */
  readonly phase: 'list' | 'call';
  /**
   * The validated arguments (the DTO instance) for interceptors; undefined for guards, which run
   * before validation (as Armature guards do).
   */
  readonly args: unknown;
}

/** True when `request` (Nest's `REQUEST`) is an MCP call rather than an HTTP request. */
export function isMcpRequest(request: unknown): request is McpRequest {
  return typeof request === 'object' && request !== null && (request as { transport?: unknown }).transport === 'mcp';
}

/** The `REQUEST` object of one MCP call. */
export function mcpRequestOf(context: Context): McpRequest {
  return Object.freeze({ transport: 'mcp', context, principal: context.principal, user: context.principal });
}
