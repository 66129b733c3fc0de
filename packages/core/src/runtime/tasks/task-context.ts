import { RELATED_TASK_META_KEY, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { callMessages } from '../../messages/call-messages.js';
import type { RequestStateCodecOf } from '../client-requests.js';
import { SdkRequestContext } from '../sdk-context.js';

/**
 * The SDK context of a task's handler. The tools/call that created the task has been answered, so
 * what the handler sends goes through the connection (2025-11-25: the session's standalone
 * stream) rather than the finished request's stream, tagged with the task (related-task `_meta`);
 * its signal is the task's, aborted by `tasks/cancel` on any instance.
 */
export function detachedContext(sdk: ServerContext, server: Server, signal: AbortSignal, taskId: string): ServerContext {
  const related = { [RELATED_TASK_META_KEY]: { taskId } };
  const notify: ServerContext['mcpReq']['notify'] = (notification) =>
    server.notification({
      ...notification,
      params: { ...notification.params, _meta: { ...(notification.params?._meta as object | undefined), ...related } },
    });
  const mcpReq: ServerContext['mcpReq'] = {
    ...sdk.mcpReq,
    signal,
    notify,
    log: (level, data, logger) => server.sendLoggingMessage({ level, data, ...(logger ? { logger } : {}), _meta: related }, sdk.sessionId),
    send: ((request: { method: string; params?: Record<string, unknown> }, ...rest: unknown[]) =>
      (server.request as (...args: unknown[]) => Promise<unknown>)(request, ...rest)) as ServerContext['mcpReq']['send'],
    elicitInput: (params, options) => server.elicitInput(params, options),
    requestSampling: (params, options) => server.createMessage(params, options),
  };
  // Only the caller's identity is kept from `http`: the request's own stream is closed.
  return { ...sdk, mcpReq, http: sdk.http?.authInfo ? { authInfo: sdk.http.authInfo } : undefined };
}

/**
 * A task handler's Context: the same API as any call's, with `progress()` also reported into the
 * task's status (`statusMessage`, seen by `tasks/get` and `notifications/tasks/status`), whether
 * or not the client asked for progress notifications.
 */
export class TaskRequestContext extends SdkRequestContext {
  constructor(
    sdk: ServerContext,
    server: Server,
    codec: RequestStateCodecOf | undefined,
    private readonly report: (statusMessage: string) => Promise<void>,
  ) {
    super(sdk, server, codec);
  }

  override async progress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.aborted) return;
    await this.report(callMessages.taskProgress(progress, total, message));
    await super.progress(progress, total, message);
  }
}
