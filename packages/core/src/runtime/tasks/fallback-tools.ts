import { type CallToolResult, ProtocolError } from '@modelcontextprotocol/server';
import { callMessages } from '../../messages/call-messages.js';
import { isTerminal, type TaskRecord } from '../../state/task-store.js';

/** What the fallback tools ask of the task service: the rules of tasks/get and tasks/cancel. */
export interface FallbackTasks {
  record(taskId: string, owner: string): Promise<TaskRecord>;
  requestCancel(taskId: string, owner: string): Promise<void>;
}

/** `tasks.fallbackTools`: the names of the tools that stand in for tasks/get, tasks/result and tasks/cancel. */
export interface FallbackToolNames {
  /** The task's status (tasks/get). */
  status: string;
  /** The task's result once it ended (tasks/result), without waiting. */
  result: string;
  /** Cancels the task (tasks/cancel). */
  cancel: string;
}

type Role = keyof FallbackToolNames;

function text(message: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: message }], ...(isError ? { isError: true } : {}) };
}

/** The task as the fallback tools show it (`structuredContent`). */
function shown(record: TaskRecord): Record<string, unknown> {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined ? { statusMessage: record.statusMessage } : {}),
  };
}

/**
 * Tasks for clients that never poll them (`tasks.fallbackTools`, off by default): a `'required'`
 * task tool called without the tasks utility or extension starts its task and answers at once
 * with its id and what to call next; three tools of the app's naming then stand in for tasks/get,
 * tasks/result and tasks/cancel, with the same owner rules (another caller's task is "not found").
 */
export class FallbackTools {
  private readonly roles: ReadonlyMap<string, Role>;

  constructor(
    readonly names: FallbackToolNames,
    private readonly tasks: FallbackTasks,
  ) {
    this.roles = new Map((Object.entries(names) as [Role, string][]).map(([role, name]) => [name, role]));
  }

  /** Whether `tool` is one of the fallback tools. */
  serves(tool: string): boolean {
    return this.roles.has(tool);
  }

  /** What the task tool answers once its task started. */
  started(record: TaskRecord): CallToolResult {
    return { ...text(callMessages.fallbackStarted(record.taskId, this.names)), structuredContent: shown(record) };
  }

  /** Answers a call of the fallback tool `tool` by `owner`; a missing or foreign task is a tool error. */
  async answer(tool: string, args: unknown, owner: string): Promise<CallToolResult> {
    const taskId = (args as { taskId?: unknown } | undefined)?.taskId;
    if (typeof taskId !== 'string' || taskId === '' || taskId.length > 200) return text(callMessages.taskIdMissing(), true);
    try {
      switch (this.roles.get(tool)) {
        case 'cancel':
          await this.tasks.requestCancel(taskId, owner);
          return this.status(await this.tasks.record(taskId, owner));
        case 'result':
          return this.result(await this.tasks.record(taskId, owner));
        default:
          return this.status(await this.tasks.record(taskId, owner));
      }
    } catch (error) {
      if (error instanceof ProtocolError) return text(error.message, true);
      throw error;
    }
  }

  private status(record: TaskRecord): CallToolResult {
    return {
      ...text(callMessages.fallbackStatus(record.taskId, record.status, record.statusMessage)),
      structuredContent: shown(record),
    };
  }

  /** The task's result, what the tool would have answered; a JSON-RPC error becomes a tool error. */
  private result(record: TaskRecord): CallToolResult {
    const { outcome } = record;
    if (!isTerminal(record.status) || !outcome) return text(callMessages.fallbackNotDone(record.taskId, record.status, this.names.status));
    if (outcome.kind === 'error') return text(outcome.message, true);
    return outcome.result as CallToolResult;
  }
}
