import { type Context, type Principal, ToolError } from '@armature/core';
import { OPENAPI_MESSAGES } from './messages.js';
import type { OpenApiOperation } from './openapi-operation.js';

/**
 * The headers that carry the caller's credentials to the API, made for each call from its
 * Context (so a request-scoped token or the MCP principal can be used).
 */
export type Credentials = (
  ctx: Context,
  operation: OpenApiOperation,
) => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>;

/**
 * A bearer token for the API made from the MCP caller: `tokenFor` maps the authenticated principal
 * (`ctx.principal`: client, subject, scopes) to a token the API accepts, by token exchange or a
 * lookup. The caller's own MCP token is never passed on (MCP authorization forbids it, and
 * Armature redacts it), so the mapping is always explicit. A call without an authenticated caller
 * fails before the HTTP call.
 *
 * @example
 * ```ts
 * new OpenApiClient({
 *   baseUrl: 'https://api.example.com',
 *   credentials: callerBearerToken((principal) => tokens.forSubject(String(principal.extra?.sub))),
 * });
 * ```
 */
export function callerBearerToken(tokenFor: (principal: Principal, ctx: Context) => string | Promise<string>): Credentials {
  return async (ctx, operation) => {
    if (!ctx.principal) throw new ToolError(OPENAPI_MESSAGES.noPrincipal(operation));
    return { authorization: `Bearer ${await tokenFor(ctx.principal, ctx)}` };
  };
}

/**
 * A fixed API key in a header, the same for every caller.
 *
 * @example
 * ```ts
 * new OpenApiClient({ baseUrl: 'https://api.example.com', credentials: apiKeyHeader('X-Api-Key', process.env.API_KEY ?? '') });
 * ```
 */
export function apiKeyHeader(name: string, key: string): Credentials {
  const headers = Object.freeze({ [name]: key });
  return () => headers;
}

/** A fixed bearer token (a service account's), the same for every caller. */
export function bearerToken(token: string): Credentials {
  const headers = Object.freeze({ authorization: `Bearer ${token}` });
  return () => headers;
}
