import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpAdapterHost } from '@nestjs/core';
import { nestMessages } from './nest-messages.js';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

interface ExpressLike {
  all(path: string, handler: NodeHandler): unknown;
}

interface FastifyLike {
  register(plugin: (instance: FastifyLike) => Promise<void>): unknown;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(type: string, parser: (request: unknown, payload: unknown, done: (error: null) => void) => void): void;
  all(path: string, handler: (request: { raw: IncomingMessage }, reply: { raw: ServerResponse; hijack(): void }) => void): unknown;
}

/**
 * Mounts `serve` at `path` on Nest's HTTP adapter, so that the MCP path reaches Armature with its
 * body unread (Armature applies its own size, depth and id checks to the raw text). Called while
 * Nest instantiates providers, before `app.init()` registers its body parsers:
 * - Express runs routes in the order they were added, so the route comes before the parsers;
 * - Fastify gets an encapsulated plugin whose only content-type parser leaves the body unread,
 *   and the reply is hijacked (Armature writes the raw response).
 */
export function mountOnHttpAdapter(adapterHost: HttpAdapterHost | undefined, path: string, serve: NodeHandler): boolean {
  const adapter = adapterHost?.httpAdapter;
  if (!adapter) return false;
  const type = adapter.getType();
  if (type === 'express') {
    (adapter.getInstance() as ExpressLike).all(path, serve);
    return true;
  }
  if (type === 'fastify') {
    (adapter.getInstance() as FastifyLike).register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
      scope.all(path, (request, reply) => {
        reply.hijack();
        serve(request.raw, reply.raw);
      });
    });
    return true;
  }
  throw new Error(nestMessages.unsupportedAdapter(type));
}
