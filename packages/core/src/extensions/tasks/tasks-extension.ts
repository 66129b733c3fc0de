import { defineExtension, type Extension, type ExtensionMethod, type ExtensionOptions } from '../../context/extension.js';
import { TASKS_EXTENSION } from '../../context/protocol-extensions.js';

// Tasks on the public extension interface: the 2026-07-28 tasks extension's id (SEP-2663) and its
// capability, advertised when a tool may run as a task; the task methods of both revisions
// (tasks/get, tasks/cancel; tasks/result and tasks/list on 2025-11-25, tasks/update on 2026-07-28),
// served like any extension's methods under the app's guards, rate limits, tracing and errors; and
// the task answer to tools/call, its `onToolCall` hook. Both answer by the task rules of the app's
// runtime (runtime/tasks/task-methods.ts, runtime/tasks/task-handlers.ts).

/** The tasks extension, which every app serves (`createMcpApp` sets it up first). */
export function tasksExtension(
  methods: Readonly<Record<string, ExtensionMethod<Record<string, unknown>>>>,
  onToolCall: NonNullable<ExtensionOptions['onToolCall']>,
): Extension {
  return defineExtension({
    id: TASKS_EXTENSION,
    methods,
    onToolCall,
    setup: (host) => {
      // A tool that may run as a task declares its `execution.taskSupport` (optional or required).
      // Without one nothing is advertised, and no task method is served.
      const hasTasks = host.catalog.tools.some((name) => host.tool(name)?.descriptor.execution !== undefined);
      if (!hasTasks) host.advertise(undefined);
    },
  });
}
