import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ExtensionContext, ExtensionMethod } from '../../context/extension.js';
import { LEGACY_REVISION, MODERN_REVISION } from '../../context/revisions.js';
import { callMessages } from '../../messages/call-messages.js';
import { principalKey } from '../principal-key.js';
import { detailedTaskOf, extensionOwner, tasksExtensionMissing } from './task-extension.js';
import type { TaskService } from './task-service.js';

type Params = Record<string, unknown>;

/** What the task methods need of the app, once it runs (the app is built before its runtime). */
export interface TaskMethodsHost {
  readonly tasks: TaskService;
  readonly pageSize: number;
}

/**
 * Who may see a task of the 2025-11-25 utility: the authenticated principal, else the session,
 * else the connection (stdio, in-memory). The tools/call that creates a task counts its owner the
 * same way (`legacyOwner`).
 */
export function legacyOwner(principal: ExtensionContext['principal'], connectionId: string): string {
  return principalKey(principal) ?? connectionId;
}

/** The taskId task method `method` names; -32602 without one. */
function taskIdOf(method: string, params: Params): string {
  const { taskId } = params;
  if (typeof taskId !== 'string') throw new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.taskMethodIdMissing(method));
  return taskId;
}

/** The owner of a 2026-07-28 request, after checking it declares the extension (-32021 otherwise). */
function extensionCaller(method: string, ctx: ExtensionContext): string {
  if (!ctx.client()) throw tasksExtensionMissing(callMessages.taskMethodNeedsExtension(method));
  return extensionOwner(ctx.principal);
}

const modern = (ctx: ExtensionContext) => ctx.revision === MODERN_REVISION;

/**
 * The task methods, as the tasks extension's methods (served under the app's guards, rate limits,
 * tracing and errors like any extension method): the 2025-11-25 tasks utility's (`tasks/get`,
 * `tasks/result`, `tasks/list`, `tasks/cancel`) and the 2026-07-28 tasks extension's (`tasks/get`,
 * `tasks/update`, `tasks/cancel`), each request answered by its revision's rules from the app's
 * TaskService. `host` is read per call: the app's runtime is made after its extensions are built.
 */
export function taskMethods(host: () => TaskMethodsHost): Readonly<Record<string, ExtensionMethod<Params>>> {
  const owner = (ctx: ExtensionContext) => legacyOwner(ctx.principal, ctx.connectionId);
  return {
    'tasks/get': {
      handle: async (params, ctx) =>
        modern(ctx)
          ? detailedTaskOf(await host().tasks.record(taskIdOf('tasks/get', params), extensionCaller('tasks/get', ctx)))
          : host().tasks.get(taskIdOf('tasks/get', params), owner(ctx)),
    },
    'tasks/cancel': {
      handle: async (params, ctx) => {
        const taskId = taskIdOf('tasks/cancel', params);
        if (!modern(ctx)) return host().tasks.cancel(taskId, owner(ctx));
        await host().tasks.requestCancel(taskId, extensionCaller('tasks/cancel', ctx));
        return {};
      },
    },
    // The extension's answers to a task's inputRequests.
    'tasks/update': {
      revisions: [MODERN_REVISION],
      handle: async (params, ctx) => {
        const taskId = taskIdOf('tasks/update', params);
        await host().tasks.answer(taskId, extensionCaller('tasks/update', ctx), ctx.inputResponses ?? {});
        return {};
      },
    },
    // Waits until the task ends: only the client (cancel, disconnect) or the app's close ends it.
    'tasks/result': {
      revisions: [LEGACY_REVISION],
      longLived: true,
      handle: (params, ctx) => host().tasks.result(taskIdOf('tasks/result', params), owner(ctx), ctx.signal),
    },
    'tasks/list': {
      revisions: [LEGACY_REVISION],
      handle: (params, ctx) => host().tasks.list(owner(ctx), params.cursor as string | undefined, host().pageSize),
    },
  };
}
