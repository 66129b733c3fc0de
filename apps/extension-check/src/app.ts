import { createMcpApp, type ExecutionContext, type Guard, type McpApp, McpServer, Tool, type ToolOptions } from '@armature/core';
import { echo } from './echo-extension.js';

@McpServer({ name: 'echo-app', version: '1.0.0' })
export class EchoAppServer {
  @Tool({ description: 'Answers pong', echo: true } as ToolOptions)
  ping() {
    return 'pong';
  }

  @Tool({ description: 'Echoes back, for clients of the echo extension only', echo: 'only' } as ToolOptions)
  echo_back() {
    return 'back';
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
