import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The HTTP request (Express's `req` or Fastify's `request`) of the MCP POST being served. Armature
 * dispatches a call in the async chain that began with the POST, so guards, interceptors and
 * request-scoped providers of that call find it here without core knowing about Nest.
 */
export const httpRequestStorage = new AsyncLocalStorage<object>();
