import type { CallToolResult, Client } from '@modelcontextprotocol/client';

/** A task as `tasks/get` and `notifications/tasks/status` describe it (2025-11-25 tasks utility). */
export interface TaskState {
  readonly taskId: string;
  readonly status: string;
  readonly statusMessage?: string;
  readonly pollInterval?: number;
}

/** One step of a task's timeline: a status (or a new status message) and when the page learnt it. */
export interface TimelineEntry {
  readonly status: string;
  readonly statusMessage?: string;
  readonly at: number;
}

export const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** The v2 client has no schemas for the tasks methods: their answers and notifications are taken as they come. */
export const AS_IS = { '~standard': { version: 1 as const, vendor: 'armature-console', validate: (value: unknown) => ({ value }) } };

function send<T>(client: Client, method: string, taskId: string): Promise<T> {
  return client.request({ method, params: { taskId } } as never, AS_IS as never) as Promise<T>;
}

/** The timeline with `state` added, when it says something new (another status or status message). */
export function withStatus(timeline: readonly TimelineEntry[], state: Pick<TaskState, 'status' | 'statusMessage'>): TimelineEntry[] {
  const last = timeline[timeline.length - 1];
  if (last && last.status === state.status && last.statusMessage === state.statusMessage) return [...timeline];
  if (last && TERMINAL.has(last.status)) return [...timeline];
  return [...timeline, { status: state.status, statusMessage: state.statusMessage, at: Date.now() }];
}

export const cancelTask = (client: Client, taskId: string) => send<unknown>(client, 'tasks/cancel', taskId);

/**
 * Follows a task until it ends (polling `tasks/get` at its `pollInterval`, between the status
 * notifications the server sends), telling `onStatus` each state, then reads `tasks/result`.
 */
export async function followTask(client: Client, created: TaskState, onStatus: (state: TaskState) => void): Promise<CallToolResult> {
  let state = created;
  onStatus(state);
  while (!TERMINAL.has(state.status)) {
    await new Promise((done) => setTimeout(done, Math.min(Math.max(state.pollInterval ?? 500, 100), 2000)));
    state = { ...state, ...(await send<TaskState>(client, 'tasks/get', created.taskId)) };
    onStatus(state);
  }
  return send<CallToolResult>(client, 'tasks/result', created.taskId);
}
