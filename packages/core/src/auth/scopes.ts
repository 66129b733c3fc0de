import type { AuthInfo } from '@modelcontextprotocol/server';

/**
 * True when the principal holds every scope in `required`: the one OAuth scope check, for a
 * handler's `@RequireScopes`, an endpoint's `requiredScopes` and a call's scopes read from its body.
 */
export function hasScopes(principal: AuthInfo | undefined, required: readonly string[]): boolean {
  if (required.length === 0) return true;
  if (!principal) return false;
  return required.every((scope) => principal.scopes.includes(scope));
}
