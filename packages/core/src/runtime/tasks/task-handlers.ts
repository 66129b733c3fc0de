import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../builder/definitions.js';
import type { ExtensionContext, ExtensionToolCall } from '../../context/extension.js';
import { MODERN_REVISION } from '../../context/revisions.js';
import { callMessages } from '../../messages/call-messages.js';
import type { TaskRecord } from '../../state/task-store.js';
import type { CallRequest } from '../call-request.js';
import { internalsOf } from '../extensions/tool-call-hooks.js';
import { TaskHandOver } from '../task-hand-over.js';
import { detailedTaskOf, extensionOwner, tasksExtensionMissing } from './task-extension.js';
import { legacyOwner } from './task-methods.js';
import type { TaskService } from './task-service.js';
import { wireOf } from './wire-task.js';

type Params = Record<string, unknown> | undefined;

/** What answering tools/call with a task needs from the app, once it runs. */
export interface TaskHost {
  readonly tasks: TaskService;
}

/** Who may see a task of the 2025-11-25 utility (see `legacyOwner`). */
function ownerOf(call: CallRequest): string {
  return legacyOwner(call.ctx.principal, call.ctx.connectionId);
}

/** Who may see a task of the 2026-07-28 extension (see `extensionOwner`). */
function extensionOwnerOf(call: CallRequest): string {
  return extensionOwner(call.ctx.principal);
}

// A call that goes on as it is: `ctx.continueAsTask()` of a tool that may call it resolves at once.
function ordinary(tool: ToolDefinition, call: CallRequest): undefined {
  if (tool.taskStart) call.ctx.taskStart = 'as-is';
  return undefined;
}

/**
 * The tasks extension's `onToolCall`: answers a `tools/call` with a task by each revision's rules
 * (the 2025-11-25 utility's `task` param, the 2026-07-28 extension's server-side choice), and the
 * fallback tools' calls; undefined runs the tool as an ordinary call. `host` is read per call: the
 * app's runtime is made after its extensions are built.
 */
export function taskToolCalls(host: () => TaskHost): (hooked: ExtensionToolCall, ctx: ExtensionContext) => Promise<unknown> {
  return async (hooked, ctx) => {
    const { tasks } = host();
    const { tool, request: call, server } = internalsOf(hooked);
    const params: Params = hooked.params;
    const modern = ctx.revision === MODERN_REVISION;
    const { fallback } = tasks;
    if (fallback?.serves(tool.name)) {
      return fallback.answer(tool.name, params?.arguments, modern ? extensionOwnerOf(call) : ownerOf(call));
    }
    // From here the answer is a task or a task error: a caller who may not use the tool learns that
    // first, exactly as from an ordinary call (`hooked.refuse()`). Guards, scopes and rate limits
    // are asked here, once: the task's background run does not ask them again.
    if (modern) {
      // spec 2026-07-28 tasks extension: the server decides; it may return a task only to a
      // request that declares the extension, and answers -32021 when it cannot do without one.
      if (tool.taskSupport === 'forbidden') return undefined;
      const declared = ctx.client() !== undefined;
      if (!declared && tool.taskSupport === 'optional') return ordinary(tool, call);
      if (declared && tool.taskStart) {
        // An ordinary call (its guards, limits and input_required rounds) until the handler calls
        // ctx.continueAsTask(): then it is answered with the task, and the handler goes on as one.
        const owner = extensionOwnerOf(call);
        const answer = (record: TaskRecord) => ({ resultType: 'task', ...detailedTaskOf(record) });
        call.ctx.taskStart = new TaskHandOver(() => tasks.adopt(tool, params?.arguments, call, owner, answer));
        return undefined;
      }
      if (!(await hooked.allowed())) return hooked.refuse();
      if (!declared && !fallback) throw tasksExtensionMissing(callMessages.taskCapabilityRequired(tool.name));
      await hooked.count();
      // A client without the extension, and the app's fallback tools: the task starts, its id is the answer.
      if (!declared) return fallback?.started(await tasks.start(tool, params?.arguments, {}, call, extensionOwnerOf(call), server, true));
      const record = await tasks.start(tool, params?.arguments, {}, call, extensionOwnerOf(call), server, true);
      return { resultType: 'task', ...detailedTaskOf(record) };
    }
    const requested = params?.task as { ttl?: unknown } | undefined;
    const asked = requested !== undefined && requested !== null;
    if (!asked && tool.taskSupport !== 'required') return ordinary(tool, call);
    if (!(await hooked.allowed())) return hooked.refuse();
    // spec 2025-11-25 (tool-level negotiation): a required tool called without a task, or a task
    // asked of a tool without one, is -32601.
    if (!asked && !fallback) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, callMessages.taskRequired(tool.name));
    if (!asked) {
      await hooked.count();
      return fallback?.started(await tasks.start(tool, params?.arguments, {}, call, ownerOf(call), server));
    }
    if (tool.taskSupport === 'forbidden') throw new ProtocolError(ProtocolErrorCode.MethodNotFound, callMessages.taskForbidden(tool.name));
    await hooked.count();
    const record = await tasks.start(tool, params?.arguments, requested, call, ownerOf(call), server);
    // The SDK (2.4.0) checks every tools/call answer against CallToolResult on 2025-11-25 and
    // refuses one that carries `task` without `content`: the empty `content` lets the
    // CreateTaskResult through; task-aware clients read `task`.
    return { content: [], task: wireOf(record) };
  };
}
