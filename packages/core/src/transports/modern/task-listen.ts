import type { AuthInfo } from '@modelcontextprotocol/server';
import { SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import { wireMessages } from '../../messages/wire-messages.js';
import type { Caller } from '../http/http-caller.js';
import type { Message } from '../http/http-messages.js';
import { jsonRpcErrorResponse } from '../wire/json-rpc-error-response.js';

/** What a listen stream for tasks needs from the app (its `TaskNotifications`). */
export interface TaskFeed {
  /** The JSON-RPC error for a request that does not declare the tasks extension, or undefined. */
  undeclared(envelope: Record<string, unknown> | undefined): { code: number; message: string; data: unknown } | undefined;
  /** Of `taskIds`, the tasks the principal may follow, as they stand. */
  follow(taskIds: readonly string[], principal: AuthInfo | undefined): Promise<ReadonlyArray<{ readonly taskId: string }>>;
  /** Sends each task's `notifications/tasks` params now and at each change; `ended` once all are terminal. Returns the stop. */
  watch(tasks: ReadonlyArray<{ readonly taskId: string }>, send: (params: Record<string, unknown>) => void, ended: () => void): () => void;
}

/**
 * Why a listen request for tasks is refused, as its answer: `taskIds` that is not a list of
 * strings (-32602), or a request that does not declare the tasks extension (-32021, as SEP-2663
 * asks); undefined when it may open.
 */
export function taskListenProblem(message: Message, taskIds: unknown, feed: TaskFeed): Response | undefined {
  const id = message.id ?? null;
  if (!Array.isArray(taskIds) || taskIds.some((taskId) => typeof taskId !== 'string')) {
    return jsonRpcErrorResponse(200, -32602, wireMessages.listenTaskIdsInvalid, id);
  }
  const undeclared = feed.undeclared(message.params?._meta as Record<string, unknown> | undefined);
  return undeclared && jsonRpcErrorResponse(200, undeclared.code, undeclared.message, id, {}, undeclared.data);
}

/** A comment line sent this often keeps proxies from closing a quiet stream (as the SDK's listen streams do). */
const KEEP_ALIVE_MS = 15_000;

/**
 * A 2026-07-28 `subscriptions/listen` stream for tasks (`notifications: { taskIds }`, SEP-2663):
 * the acknowledgement names the tasks the caller may follow (its own, still kept), then each of
 * them is sent as it stands and at each change (`notifications/tasks`, the task as `tasks/get`
 * shows it), and the stream ends with the listen result once every one of them is terminal (at
 * once when none may be followed). `done` is called when the stream ends, however it ends; the
 * stream is in `open` (its graceful end) while it lasts, for the endpoint to end it at close.
 */
export async function serveTaskListen(
  message: Message,
  taskIds: readonly string[],
  caller: Caller,
  feed: TaskFeed,
  done: () => void,
  open: Set<() => void>,
): Promise<Response> {
  const tasks = await feed.follow(taskIds, caller.principal);
  const subscriptionId = message.id ?? null;
  const encoder = new TextEncoder();
  const meta = { [SUBSCRIPTION_ID_META_KEY]: subscriptionId };
  let stop: () => void = () => undefined;
  let closed = false;
  let keepAlive: NodeJS.Timeout | undefined;
  let ending: () => void = () => undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (payload: object) => {
        if (!closed) controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...payload })}\n\n`));
      };
      const end = (graceful: boolean) => {
        if (closed) return;
        if (graceful) write({ id: subscriptionId, result: { resultType: 'complete', _meta: meta } });
        closed = true;
        clearInterval(keepAlive);
        stop();
        open.delete(ended);
        done();
        try {
          controller.close();
        } catch {
          // Already cancelled by the client.
        }
      };
      const ended = () => end(true);
      open.add(ended);
      write({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { taskIds: tasks.map((task) => task.taskId) }, _meta: meta },
      });
      keepAlive = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(': keepalive\n\n'));
      }, KEEP_ALIVE_MS);
      keepAlive.unref();
      stop = feed.watch(tasks, (params) => write({ method: 'notifications/tasks', params: { ...params, _meta: meta } }), ended);
      ending = () => end(false);
    },
    cancel() {
      ending();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
  });
}
