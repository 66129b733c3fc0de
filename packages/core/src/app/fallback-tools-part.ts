import { ToolError } from '../context/errors.js';
import { McpServer } from '../decorators/mcp-server.decorator.js';
import { Tool } from '../decorators/tool.decorator.js';
import { callMessages } from '../messages/call-messages.js';
import type { Constructor } from '../metadata/metadata-args.js';
import type { FallbackToolNames } from '../runtime/tasks/fallback-tools.js';

const TASK_ID_INPUT = {
  type: 'object',
  properties: { taskId: { type: 'string', minLength: 1, maxLength: 200, description: 'The task id the task tool answered' } },
  required: ['taskId'],
  additionalProperties: false,
};

const DESCRIPTIONS: Record<keyof FallbackToolNames, string> = {
  status: 'How a task started by a long-running tool is going (its status and last progress message)',
  result: 'The result of a task started by a long-running tool, once it is completed',
  cancel: 'Cancels a task started by a long-running tool',
};

/**
 * The server class that declares the fallback tools (`tasks.fallbackTools`) in the app's
 * catalogue, so clients list them and their arguments are described. Their calls are answered by
 * the tasks runtime (`FallbackTools`), with the caller's owner; the methods run only in an app
 * without task tools, where there is no task to ask about.
 */
export function fallbackToolsPart(names: FallbackToolNames): Constructor {
  class TaskFallbackTools {}
  for (const [role, name] of Object.entries(names) as [keyof FallbackToolNames, string][]) {
    const method = () => {
      throw new ToolError(callMessages.fallbackWithoutTasks());
    };
    Object.defineProperty(TaskFallbackTools.prototype, role, { value: method, writable: true, configurable: true });
    const descriptor = Object.getOwnPropertyDescriptor(TaskFallbackTools.prototype, role) as PropertyDescriptor;
    Tool({ name, description: DESCRIPTIONS[role], inputSchema: TASK_ID_INPUT })(TaskFallbackTools.prototype, role, descriptor);
  }
  McpServer({ name: 'task-fallback-tools', version: '1.0.0' })(TaskFallbackTools);
  return TaskFallbackTools;
}
