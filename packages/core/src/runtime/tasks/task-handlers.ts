import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../builder/definitions.js';
import { callMessages } from '../../messages/call-messages.js';
import type { TaskRecord } from '../../state/task-store.js';
import { isAllowed } from '../access.js';
import type { CallRequest } from '../call-request.js';
import { type RateLimiting, rateLimitedError } from '../rate-limiting.js';
import { TaskHandOver } from '../task-hand-over.js';
import { declaresTasks, detailedTaskOf, extensionOwner, tasksExtensionMissing } from './task-extension.js';
import { legacyOwner } from './task-methods.js';
import type { TaskService } from './task-service.js';
import { wireOf } from './wire-task.js';

type Params = Record<string, unknown> | undefined;

/** What answering tools/call with a task needs from the app. */
export interface TaskHost {
  readonly tasks: TaskService;
  /** Counts a task's call against its tool's rate limits when it is asked for. */
  readonly rateLimiting?: RateLimiting;
}

/** How a `tools/call` is answered as a task, or undefined to run it as an ordinary call. */
export type TaskRoute = (tool: ToolDefinition, params: Params, call: CallRequest) => Promise<unknown>;

/** Who may see a task of the 2025-11-25 utility (see `legacyOwner`). */
function ownerOf(call: CallRequest): string {
  return legacyOwner(call.ctx.principal, call.ctx.connectionId);
}

/** Who may see a task of the 2026-07-28 extension (see `extensionOwner`). */
function extensionOwnerOf(call: CallRequest): string {
  return extensionOwner(call.ctx.principal);
}

/** True for a request of the 2026-07-28 revision (it carries the per-request envelope). */
function modern(call: CallRequest): boolean {
  return call.ctx.roundTrip !== undefined;
}

/**
 * How `tools/call` is answered with a task on one connection's SDK server, by each revision's
 * rules (the 2025-11-25 utility's `task` param, the 2026-07-28 extension's server-side choice).
 * The task methods themselves are the tasks extension's (task-methods.ts).
 */
export function serveTasks(app: TaskHost, server: Server): TaskRoute {
  const { tasks } = app;

  // From here the answer is a task or a task error: a caller who may not use the tool learns that
  // first, exactly as from an ordinary call. Guards and scopes are asked here, once: the task's
  // background run does not ask them again.
  const hidden = async (tool: ToolDefinition, call: CallRequest) =>
    (tool.plan.guarded || call.filtered) && !(await isAllowed(tool.plan, 'call', call));
  // Rate limits are counted here too, once, as for an ordinary call; a refused task is a JSON-RPC error.
  const counted = async (tool: ToolDefinition, call: CallRequest) => {
    if (tool.plan.rateLimits.length === 0 || !app.rateLimiting) return;
    const refusal = await app.rateLimiting.check(tool.plan, `tool "${tool.name}"`, call);
    if (refusal) throw rateLimitedError(refusal, app.rateLimiting.errorShape);
  };

  // A call that goes on as it is: `ctx.continueAsTask()` of a tool that may call it resolves at once.
  const ordinary = (tool: ToolDefinition, call: CallRequest) => {
    if (tool.taskStart) call.ctx.taskStart = 'as-is';
    return undefined;
  };

  return async (tool, params, call) => {
    const { fallback } = tasks;
    if (fallback?.serves(tool.name)) {
      return fallback.answer(tool.name, params?.arguments, modern(call) ? extensionOwnerOf(call) : ownerOf(call));
    }
    if (modern(call)) {
      // spec 2026-07-28 tasks extension: the server decides; it may return a task only to a
      // request that declares the extension, and answers -32021 when it cannot do without one.
      if (tool.taskSupport === 'forbidden') return undefined;
      const declared = declaresTasks(call);
      if (!declared && tool.taskSupport === 'optional') return ordinary(tool, call);
      if (declared && tool.taskStart) {
        // An ordinary call (its guards, limits and input_required rounds) until the handler calls
        // ctx.continueAsTask(): then it is answered with the task, and the handler goes on as one.
        const owner = extensionOwnerOf(call);
        const answer = (record: TaskRecord) => ({ resultType: 'task', ...detailedTaskOf(record) });
        call.ctx.taskStart = new TaskHandOver(() => tasks.adopt(tool, params?.arguments, call, owner, answer));
        return undefined;
      }
      if (await hidden(tool, call)) return tasks.denied(tool, call);
      if (!declared && !fallback) throw tasksExtensionMissing(callMessages.taskCapabilityRequired(tool.name));
      await counted(tool, call);
      // A client without the extension, and the app's fallback tools: the task starts, its id is the answer.
      if (!declared) return fallback?.started(await tasks.start(tool, params?.arguments, {}, call, extensionOwnerOf(call), server, true));
      const record = await tasks.start(tool, params?.arguments, {}, call, extensionOwnerOf(call), server, true);
      return { resultType: 'task', ...detailedTaskOf(record) };
    }
    const requested = params?.task as { ttl?: unknown } | undefined;
    const asked = requested !== undefined && requested !== null;
    if (!asked && tool.taskSupport !== 'required') return ordinary(tool, call);
    if (await hidden(tool, call)) return tasks.denied(tool, call);
    // spec 2025-11-25 (tool-level negotiation): a required tool called without a task, or a task
    // asked of a tool without one, is -32601.
    if (!asked && !tasks.fallback) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, callMessages.taskRequired(tool.name));
    if (!asked) {
      await counted(tool, call);
      return tasks.fallback?.started(await tasks.start(tool, params?.arguments, {}, call, ownerOf(call), server));
    }
    if (tool.taskSupport === 'forbidden') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, callMessages.taskForbidden(tool.name));
    await counted(tool, call);
    const record = await tasks.start(tool, params?.arguments, requested, call, ownerOf(call), server);
    // The SDK (2.4.0) checks every tools/call answer against CallToolResult on 2025-11-25 and
    // refuses one that carries `task` without `content`: the empty `content` lets the
    // CreateTaskResult through; task-aware clients read `task`.
    return { content: [], task: wireOf(record) };
  };
}
