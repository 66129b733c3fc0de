import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/server';
import type { RequestSource } from './request-source.js';

// Which connection a request came on, for state kept per client connection (the 2025-11-25 tasks
// utility's owners, an extension's `ctx.connectionId`): one id per SDK server, which serves one
// connection (stdio, an in-memory pair, a 2025-11-25 HTTP session, a 2026-07-28 HTTP request).

const ids = new WeakMap<Server, string>();

/** The request's connection: its session's id when it has one, else its SDK server's own id. */
export function connectionIdOf(source: RequestSource, server: Server | undefined): string {
  if (source.sessionId) return `session:${source.sessionId}`;
  if (!server) return `request:${randomUUID()}`;
  let id = ids.get(server);
  if (id === undefined) {
    id = `connection:${randomUUID()}`;
    ids.set(server, id);
  }
  return id;
}
