import { type BuildOptions, buildAppDefinition } from '../builder/build-app-definition.js';
import type { AppDefinition } from '../builder/definitions.js';
import { type AppPart, classesOf } from '../builder/mounted-part.js';
import type { ContainerAdapter } from '../di/container-adapter.js';
import { mcpApps } from '../extensions/apps/apps-extension.js';
import { withDecoratedSkills } from '../extensions/skills/skills-extension.js';
import { tasksExtension } from '../extensions/tasks/tasks-extension.js';
import { type LoggerOption } from '../observability/server-log.js';
import type { RuntimeOptions } from '../runtime/app-runtime.js';
import { taskToolCalls } from '../runtime/tasks/task-handlers.js';
import { type TaskMethodsHost, taskMethods } from '../runtime/tasks/task-methods.js';
import type { AppState } from '../state/app-state.js';
import { optionProblems, withOptionProblems } from './app-options.js';
import { checkSingleInstance } from './check-single-instance.js';
import { fallbackToolsPart } from './fallback-tools-part.js';

/** What the app is built from besides its parts: the builder's options and those checked with them. */
type AppBuildOptions = BuildOptions &
  Pick<RuntimeOptions, 'tasks' | 'requestStateKey' | 'hiddenTags' | 'telemetry' | 'rateLimitError'> & {
    state?: AppState;
    logger?: LoggerOption;
  };

/**
 * What an app serves, built once from its parts and options: the fallback tools of tasks
 * (`tasks.fallbackTools`, a server class of their own), the skills extension a class with
 * `@Skills` brings, Armature's own extensions (tasks, MCP Apps) set up before the app's; every
 * problem (the options', the container's) in one `ArmatureBuildError`. `runtime`: the app's
 * runtime once made, which the task methods and the task answer to tools/call answer from.
 */
export function buildApp(
  given: readonly AppPart[],
  options: AppBuildOptions,
  container: ContainerAdapter,
  runtime: () => TaskMethodsHost,
): AppDefinition {
  const fallback = options.tasks?.fallbackTools;
  const parts = fallback ? [...given, fallbackToolsPart(fallback)] : given;
  const classes = classesOf(parts).map((entry) => entry.serverClass);
  checkSingleInstance(classes);
  const extensions = withDecoratedSkills(classes, options.extensions);
  return withOptionProblems(
    () =>
      buildAppDefinition(parts, { ...options, container, extensions }, undefined, [
        tasksExtension(taskMethods(runtime), taskToolCalls(runtime)),
        mcpApps(),
      ]),
    optionProblems(options),
  );
}
