import { createMcpApp, type ExecutionContext, type Guard, type McpApp, McpServer, Tool } from '@armature/core';
import { echo } from './echo-extension.js';

@McpServer({ name: 'echo-app', version: '1.0.0' })
export class EchoAppServer {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

/** The app's own guard: refuses a request whose `_meta` asks to be refused. */
export class RefuseMarked implements Guard {
  canActivate(context: ExecutionContext): boolean {
    return context.context.meta['com.example/refuse'] !== true;
  }
}

/** Calls of each method (and tool) allowed per window: the app's own limit, which extension methods count against too. */
export const CALLS_PER_WINDOW = 4;

export function createEchoApp(): McpApp {
  return createMcpApp(EchoAppServer, {
    extensions: [echo],
    guards: [RefuseMarked],
    rateLimits: [{ limit: CALLS_PER_WINDOW, windowMs: 60_000, by: ['tool', 'session'] }],
  });
}
