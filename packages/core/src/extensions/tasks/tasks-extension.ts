import { defineExtension, type Extension, type ExtensionMethod } from '../../context/extension.js';
import { TASKS_EXTENSION } from '../../context/protocol-extensions.js';

// Tasks on the public extension interface: the 2026-07-28 tasks extension's id (SEP-2663) and its
// capability, advertised when a tool may run as a task, and the task methods of both revisions
// (tasks/get, tasks/cancel; tasks/result and tasks/list on 2025-11-25, tasks/update on 2026-07-28),
// served like any extension's methods under the app's guards, rate limits, tracing and errors.
// The methods answer by the task rules of the app's runtime (runtime/tasks/task-methods.ts).

/** The tasks extension, which every app serves (`createMcpApp` sets it up first). */
export function tasksExtension(methods: Readonly<Record<string, ExtensionMethod<Record<string, unknown>>>>): Extension {
  return defineExtension({
    id: TASKS_EXTENSION,
    methods,
    setup: (host) => {
      // A tool that may run as a task declares its `execution.taskSupport` (optional or required).
      // Without one nothing is advertised, and no task method is served.
      const hasTasks = host.catalog.tools.some((name) => host.tool(name)?.descriptor.execution !== undefined);
      if (!hasTasks) host.advertise(undefined);
    },
  });
}
