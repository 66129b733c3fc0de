import { RELATED_TASK_META_KEY, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { ToolError } from '../../context/errors.js';
import { callMessages } from '../../messages/call-messages.js';
import type { ClientChannel, RequestStateCodecOf } from '../client-requests.js';
import { SdkRequestContext } from '../sdk-context.js';

/** Runs a request to the client while the task shows `input_required` (spec 2025-11-25). */
export type AskClient = <T>(ask: () => Promise<T>) => Promise<T>;

/**
 * The SDK context of a task's handler. The tools/call that created the task has been answered, so
 * what the handler sends goes through the connection (2025-11-25: the session's standalone
 * stream) rather than the finished request's stream, tagged with the task (related-task `_meta`);
 * its signal is the task's, aborted by `tasks/cancel` on any instance. While the handler waits for
 * the client (elicitation, sampling, roots), the task is `input_required`.
 *
 * Without `asking`, the task belongs to the 2026-07-28 tasks extension: its request was stateless
 * and is over, so there is no stream to send on. Its log lines and notifications go nowhere (the
 * extension does not carry them; progress reaches the task's status), and the request's envelope
 * is dropped so that the handler does not run as a multi-round-trip call.
 */
export function detachedContext(
  sdk: ServerContext,
  server: Server,
  signal: AbortSignal,
  taskId: string,
  asking: AskClient | undefined,
): ServerContext {
  const authOnly = sdk.http?.authInfo ? { authInfo: sdk.http.authInfo } : undefined;
  if (!asking) {
    const silent = async () => undefined;
    const mcpReq: ServerContext['mcpReq'] = { ...sdk.mcpReq, envelope: undefined, signal, notify: silent, log: silent };
    return { ...sdk, mcpReq, http: authOnly };
  }
  const related = { [RELATED_TASK_META_KEY]: { taskId } };
  const tagged = <P extends { _meta?: unknown } | undefined>(params: P) => ({
    ...params,
    _meta: { ...(params?._meta as object | undefined), ...related },
  });
  const notify: ServerContext['mcpReq']['notify'] = (notification) =>
    server.notification({ ...notification, params: tagged(notification.params) });
  const request = (server.request as (...args: unknown[]) => Promise<unknown>).bind(server);
  const mcpReq: ServerContext['mcpReq'] = {
    ...sdk.mcpReq,
    signal,
    notify,
    log: (level, data, logger) => server.sendLoggingMessage({ level, data, ...(logger ? { logger } : {}), _meta: related }, sdk.sessionId),
    send: ((message: { method: string; params?: Record<string, unknown> }, ...rest: unknown[]) =>
      asking(() => request({ ...message, params: tagged(message.params) }, ...rest))) as ServerContext['mcpReq']['send'],
    elicitInput: (params, options) => asking(() => server.elicitInput(tagged(params) as typeof params, options)),
    requestSampling: (params, options) => asking(() => server.createMessage(tagged(params) as typeof params, options)),
  };
  // Only the caller's identity is kept from `http`: the request's own stream is closed.
  return { ...sdk, mcpReq, http: authOnly };
}

/**
 * How a task of the 2026-07-28 tasks extension reaches its client: it does not. Armature does not
 * serve the extension's `inputRequests` yet, so `ctx.elicit`, `ctx.sample` and `ctx.roots` end in
 * a tool error saying so, rather than waiting for an answer that cannot come.
 */
const noClient: ClientChannel = {
  capabilities: () => undefined,
  missing: () => {
    throw new ToolError(callMessages.taskCannotAsk());
  },
  elicitForm: () => Promise.reject(new ToolError(callMessages.taskCannotAsk())),
  elicitUrl: () => Promise.reject(new ToolError(callMessages.taskCannotAsk())),
  sample: () => Promise.reject(new ToolError(callMessages.taskCannotAsk())),
  roots: () => Promise.reject(new ToolError(callMessages.taskCannotAsk())),
};

/**
 * A task handler's Context: the same API as any call's, with `progress()` also reported into the
 * task's status (`statusMessage`, seen by `tasks/get` and `notifications/tasks/status`), whether
 * or not the client asked for progress notifications. `reachesClient` is false for tasks of the
 * 2026-07-28 tasks extension, which cannot ask the client anything.
 */
export class TaskRequestContext extends SdkRequestContext {
  constructor(
    sdk: ServerContext,
    server: Server,
    codec: RequestStateCodecOf | undefined,
    private readonly report: (statusMessage: string) => Promise<void>,
    private readonly reachesClient = true,
  ) {
    super(sdk, server, codec);
  }

  override get channel(): ClientChannel {
    return this.reachesClient ? super.channel : noClient;
  }

  override async progress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.aborted) return;
    await this.report(callMessages.taskProgress(progress, total, message));
    await super.progress(progress, total, message);
  }
}
