import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpAdapterHost } from '@nestjs/core';
import { httpRequestStorage } from './http-request-storage.js';
import { nestMessages } from './nest-messages.js';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

interface ExpressLayer {
  name?: string;
  handle: (req: { path?: string }, res: unknown, next: () => void) => unknown;
}

interface ExpressLike {
  all(path: string, handler: (req: IncomingMessage & object, res: ServerResponse) => void): unknown;
  /** Express 5's (Nest 11 and 12 use Express 5) router; its stack is what Nest itself reads for its parsers. */
  router?: { stack?: ExpressLayer[] };
}

interface FastifyLike {
  register(plugin: (instance: FastifyLike) => Promise<void>): unknown;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(type: string, parser: (request: unknown, payload: unknown, done: (error: null) => void) => void): void;
  all(path: string, handler: (request: { raw: IncomingMessage }, reply: { raw: ServerResponse; hijack(): void }) => void): unknown;
}

/** The body parsers Express apps use (Nest's own and `express.json()` & co.): they must leave the MCP body unread. */
const BODY_PARSERS = new Set(['jsonParser', 'urlencodedParser', 'textParser', 'rawParser']);

/**
 * Mounts `serve` at `path` on Nest's HTTP adapter. Called from `onModuleInit`, when Nest has
 * registered its body parsers, its middleware (`MiddlewareConsumer`, and `app.use()` from
 * main.ts) and its routes, but not yet its not-found handler: the MCP endpoint then runs behind
 * the app's middleware (request ids, helmet, CLS...) as a route would, while Armature still reads
 * the raw body with its own size, depth and id checks.
 * - Express: the body parsers in the app's stack skip the MCP path, and the route is added last.
 * - Fastify: an encapsulated plugin whose only content-type parser leaves the body unread; the
 *   reply is hijacked (Armature writes the raw response). Middleware (middie) runs on its hook.
 * Guards and request-scoped providers of the call find the framework's request in `httpRequestStorage`.
 */
export function mountOnHttpAdapter(adapterHost: HttpAdapterHost | undefined, path: string, serve: NodeHandler): boolean {
  const adapter = adapterHost?.httpAdapter;
  if (!adapter) return false;
  const type = adapter.getType();
  if (type === 'express') {
    const express = adapter.getInstance() as ExpressLike;
    for (const layer of express.router?.stack ?? []) {
      if (!BODY_PARSERS.has(layer.name ?? '')) continue;
      const parse = layer.handle;
      layer.handle = (req, res, next) => (req.path === path ? next() : parse(req, res, next));
    }
    express.all(path, (req, res) => httpRequestStorage.run(req, () => serve(req, res)));
    return true;
  }
  if (type === 'fastify') {
    (adapter.getInstance() as FastifyLike).register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
      scope.all(path, (request, reply) => {
        reply.hijack();
        httpRequestStorage.run(request, () => serve(request.raw, reply.raw));
      });
    });
    return true;
  }
  throw new Error(nestMessages.unsupportedAdapter(type));
}
