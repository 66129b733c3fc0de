import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpAdapterHost } from '@nestjs/core';
import { nestMessages } from './nest-messages.js';

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

interface ExpressLike {
  all(path: string, handler: NodeHandler): unknown;
}

/**
 * Mounts `serve` at `path` on Nest's HTTP adapter. Called while Nest instantiates providers,
 * before `app.init()` registers its body parsers: Express runs routes in the order they were
 * added, so the MCP path reaches Armature with its body unread.
 */
export function mountOnHttpAdapter(adapterHost: HttpAdapterHost | undefined, path: string, serve: NodeHandler): boolean {
  const adapter = adapterHost?.httpAdapter;
  if (!adapter) return false;
  const type = adapter.getType();
  if (type !== 'express') throw new Error(nestMessages.unsupportedAdapter(type));
  (adapter.getInstance() as ExpressLike).all(path, serve);
  return true;
}
