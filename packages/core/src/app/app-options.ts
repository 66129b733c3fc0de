import type { AppDefinition } from '../builder/definitions.js';
import { ArmatureBuildError, type BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import { ArmatureMetricProducer } from '../observability/metric-producer.js';
import { type LoggerOption, loggerOptionProblem } from '../observability/server-log.js';
import type { AppState } from '../state/app-state.js';

/**
 * What is wrong with the app's own options: the `state` option without what it requires, a
 * `logger` Armature does not know, `hiddenTags` that are not tags.
 */
export function optionProblems(options: {
  state?: AppState;
  requestStateKey?: unknown;
  logger?: LoggerOption;
  hiddenTags?: unknown;
  telemetry?: unknown;
  rateLimitError?: unknown;
}): BuildProblem[] {
  const problems: BuildProblem[] = [];
  const state = options.state;
  if (state?.shared && options.requestStateKey === undefined) {
    problems.push(problem(MESSAGES.sharedStateWithoutRequestStateKey, 'createMcpApp options', state.name));
  }
  const logger = loggerOptionProblem(options.logger);
  if (logger) problems.push(problem(MESSAGES.loggerOptionInvalid, 'createMcpApp options', logger));
  const tags = options.hiddenTags;
  if (tags !== undefined && !(Array.isArray(tags) && tags.every((tag) => typeof tag === 'string' && tag !== '')))
    problems.push(problem(MESSAGES.tagsInvalid, 'createMcpApp options (hiddenTags)', JSON.stringify(tags) ?? String(tags)));
  const telemetry = options.telemetry;
  if (telemetry !== undefined && typeof telemetry !== 'boolean' && !isTelemetryOptions(telemetry))
    problems.push(
      problem(
        MESSAGES.telemetryOptionInvalid,
        'createMcpApp options (telemetry)',
        `telemetry is ${JSON.stringify(telemetry) ?? String(telemetry)}`,
      ),
    );
  const shape = options.rateLimitError;
  if (shape !== undefined && shape !== 'armature' && shape !== 'sep-3304')
    problems.push(problem(MESSAGES.rateLimitErrorInvalid, 'createMcpApp options (rateLimitError)', JSON.stringify(shape) ?? String(shape)));
  return problems;
}

function isTelemetryOptions(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { detail, metrics } = value as { detail?: unknown; metrics?: unknown };
  return (
    Object.keys(value).every((key) => key === 'detail' || key === 'metrics') &&
    (detail === undefined || detail === 'handlers' || detail === 'steps') &&
    (metrics === undefined || metrics instanceof ArmatureMetricProducer)
  );
}

/** Builds, reporting the options' problems in the same one error as the build's. */
export function withOptionProblems(build: () => AppDefinition, problems: BuildProblem[]): AppDefinition {
  let definition: AppDefinition;
  try {
    definition = build();
  } catch (error) {
    if (error instanceof ArmatureBuildError && problems.length > 0) throw new ArmatureBuildError([...error.problems, ...problems]);
    throw error;
  }
  if (problems.length > 0) throw new ArmatureBuildError(problems);
  return definition;
}
