/** What `app.tools.showFor` / `hideFor` / `resetFor` throw when called wrongly: written here once. */
export const visibilityMessages = {
  targetInvalid(found: string): string {
    return `a visibility target is a handler's ctx (its session), { session: id } (a session by its Mcp-Session-Id) or { principal: ctx.principal } (every session of that caller), got ${found}`;
  },
  noSession(): string {
    return 'this request belongs to no session (stdio and in-memory connections, or HTTP 2026-07-28, have none): pass { principal: ctx.principal } to reach the caller, or, with one client over stdio, use app.tools.enable/disable';
  },
  selectorInvalid(found: string): string {
    return `say what to show or hide with tags and/or names, e.g. { tags: ['admin'] } or { names: ['delete_repo'] }, got ${found}`;
  },
  unknownName(name: string, catalog: string): string {
    return `nothing named "${name}" is registered in app.${catalog} (use the name it is served under, prefix included)`;
  },
};
