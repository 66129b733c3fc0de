import { defineExtension, type Extension } from '../../context/extension.js';
import { TASKS_EXTENSION } from '../../context/protocol-extensions.js';

// The 2026-07-28 tasks extension (SEP-2663) as far as the public extension interface carries it:
// its id and its capability, advertised when a tool may run as a task. Its methods (tasks/get,
// tasks/update, tasks/cancel, named like the 2025-11-25 utility's and answered by the same task
// rules) and its answer to tools/call stay in runtime/tasks: as extension methods they would run
// under the app's guards, interceptors and rate limits, which tasks' methods do not.

/** The tasks extension, which every app serves (`createMcpApp` sets it up first). */
export function tasksExtension(): Extension {
  return defineExtension({
    id: TASKS_EXTENSION,
    setup: (host) => {
      // A tool that may run as a task declares its `execution.taskSupport` (optional or required).
      const hasTasks = host.catalog.tools.some((name) => host.tool(name)?.descriptor.execution !== undefined);
      if (!hasTasks) host.advertise(undefined);
    },
  });
}
