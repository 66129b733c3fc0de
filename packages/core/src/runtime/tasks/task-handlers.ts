import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../builder/definitions.js';
import { callMessages } from '../../messages/call-messages.js';
import { isAllowed } from '../access.js';
import type { CallRequest } from '../call-request.js';
import type { TaskService } from './task-service.js';

type Params = Record<string, unknown> | undefined;
type On = (method: string, handler: (params: Params, call: CallRequest) => unknown) => void;

/** What serving tasks needs from the app. */
export interface TaskHost {
  readonly tasks: TaskService;
  readonly pageSize: number;
}

/** How a `tools/call` is answered as a task, or undefined to run it as an ordinary call. */
export type TaskRoute = (tool: ToolDefinition, params: Params, call: CallRequest) => Promise<unknown>;

/**
 * Who may see a task: the authenticated principal (client id and subject), else the 2025-11-25
 * session, else the connection (stdio, in-memory).
 */
function ownerOf(call: CallRequest, connection: string): string {
  const principal = call.ctx.principal;
  if (principal) {
    // The same key as a session's owner (client id and subject), so "the same caller" means one thing.
    const sub = (principal.extra as { sub?: unknown } | undefined)?.sub;
    return `principal:${principal.clientId}\u0000${typeof sub === 'string' ? sub : ''}`;
  }
  const session = call.ctx.raw.sessionId;
  return session ? `session:${session}` : `connection:${connection}`;
}

/**
 * Serves the 2025-11-25 tasks utility on one connection's SDK server: installs `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel`, and returns how `tools/call` starts a task.
 * On 2026-07-28 requests the tasks extension is not served yet: tools run as ordinary calls.
 */
export function serveTasks(app: TaskHost, server: Server, on: On): TaskRoute {
  const connection = randomUUID();
  const { tasks } = app;
  const taskIdOf = (params: Params) => String(params?.taskId);

  on('tasks/get', (params, call) => tasks.get(taskIdOf(params), ownerOf(call, connection)));
  on('tasks/result', (params, call) => tasks.result(taskIdOf(params), ownerOf(call, connection), call.ctx.signal));
  on('tasks/list', (params, call) => tasks.list(ownerOf(call, connection), params?.cursor as string | undefined, app.pageSize));
  on('tasks/cancel', (params, call) => tasks.cancel(taskIdOf(params), ownerOf(call, connection)));

  return async (tool, params, call) => {
    if (call.ctx.roundTrip) return undefined;
    const requested = params?.task as { ttl?: unknown } | undefined;
    if (requested === undefined || requested === null) {
      // spec 2025-11-25 (tool-level negotiation): a required tool called without a task is -32601.
      if (tool.taskSupport === 'required') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, callMessages.taskRequired(tool.name));
      return undefined;
    }
    if (tool.taskSupport === 'forbidden') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, callMessages.taskForbidden(tool.name));
    // A caller who may not use the tool learns that now, exactly as from an ordinary call.
    if (tool.plan.guarded && !(await isAllowed(tool.plan, 'call', call))) return undefined;
    return tasks.start(tool, params?.arguments, requested, call, ownerOf(call, connection), server);
  };
}
