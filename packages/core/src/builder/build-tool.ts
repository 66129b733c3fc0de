import type { Tool } from '@modelcontextprotocol/server';
import { MESSAGES } from '../messages/message-catalog.js';
import type { ArgumentLimits, Constructor, HandlerMetadataArgs, JsonSchema, TaskStart, ToolOptions } from '../metadata/metadata-args.js';
import { DEFAULT_ARGUMENT_LIMITS } from '../validation/argument-limits.js';
import {
  CodeGenerationRefused,
  compileJsonSchema,
  JsonSchemaValidatorMissing,
  type JsonValidator,
} from '../validation/json-schema-validator.js';
import { headerParamsOf } from '../validation/param-headers.js';
import type { InputPlan } from '../validation/prepare-arguments.js';
import type { PlanContext } from './build-call-plan.js';
import type { OutputDefinition, TaskSupport, ToolDefinition } from './definitions.js';
import { deepFreeze, dtoInput, EMPTY_INPUT_SCHEMA, HandlerBuild, type Method } from './handler-build.js';
import { explicitDto } from './infer-dto-parameter.js';

/** A hand-written schema (`inputSchema`/`outputSchema`), checked and compiled, or undefined after reporting. */
function rawSchema(build: HandlerBuild<'tool'>, option: 'inputSchema' | 'outputSchema', schema: JsonSchema) {
  if (schema.type !== 'object') build.add(MESSAGES.rawSchemaNotObject, option);
  try {
    // Advertised as written: a `$schema` the author gave stays, none is added (2020-12 is MCP's default).
    return { validate: compileJsonSchema(schema), schema };
  } catch (error) {
    if (error instanceof CodeGenerationRefused) {
      build.add(MESSAGES.schemaNeedsCodeGeneration, `\`${option}\``);
      return undefined;
    }
    build.add(
      error instanceof JsonSchemaValidatorMissing ? MESSAGES.jsonSchemaValidatorMissing : MESSAGES.rawSchemaInvalid,
      option,
      (error as Error).message,
    );
    return undefined;
  }
}

/** A `@Tool` method as a frozen definition, or undefined after reporting its problems. */
/** The tool's `task` option: how it may run as a task, how many times its task may run again, and when it starts. */
function taskOptionsOf(
  build: HandlerBuild<'tool'>,
  task: ToolOptions['task'],
): { taskSupport: TaskSupport; taskRetries: number; taskStart: TaskStart } {
  const none = { taskSupport: 'forbidden', taskRetries: 0, taskStart: 'call' } as const;
  if (task === undefined) return none;
  const spelled = typeof task === 'object' && task !== null;
  const support: unknown = spelled ? task.support : task;
  if (support !== 'optional' && support !== 'required') {
    build.add(MESSAGES.taskOptionInvalid, JSON.stringify(task) ?? String(task));
    return none;
  }
  const retries: unknown = spelled ? (task.retries ?? 0) : 0;
  if (!(Number.isSafeInteger(retries) && (retries as number) >= 0 && (retries as number) <= 10)) {
    build.add(MESSAGES.taskRetriesInvalid, JSON.stringify(retries) ?? String(retries));
  }
  const start: unknown = spelled ? (task.start ?? 'call') : 'call';
  if (start !== 'call' && start !== 'continueAsTask') build.add(MESSAGES.taskStartInvalid, JSON.stringify(start) ?? String(start));
  // A run again starts the handler from the top, away from the call whose rounds held the answers.
  else if (start === 'continueAsTask' && typeof retries === 'number' && retries > 0) build.add(MESSAGES.taskStartWithRetries, retries);
  return { taskSupport: support, taskRetries: retries as number, taskStart: start === 'continueAsTask' ? start : 'call' };
}

export function buildTool(
  planning: PlanContext,
  serverClass: Constructor,
  args: HandlerMetadataArgs<'tool'>,
  appLimits: ArgumentLimits | undefined,
): ToolDefinition | undefined {
  const build = new HandlerBuild(planning, serverClass, args);
  const { options } = args;
  const name = options.name ?? args.methodName;
  if (args.isStatic) build.add(MESSAGES.staticHandler, 'tool', args.methodName);
  build.checkName('tool', name);
  if (typeof options.description !== 'string' || options.description.trim() === '') build.add(MESSAGES.toolDescriptionMissing, name);
  const { taskSupport, taskRetries, taskStart } = taskOptionsOf(build, options.task);
  const method = (serverClass.prototype as Record<string, unknown>)[args.methodName];
  if (typeof method !== 'function' && !args.isStatic) build.add(MESSAGES.notAMethod, 'tool');

  const limits = Object.freeze({ ...DEFAULT_ARGUMENT_LIMITS, ...appLimits, ...options.limits });
  let input: InputPlan = { kind: 'none' };
  let inputSchema = EMPTY_INPUT_SCHEMA;
  if (options.inputSchema && options.input) build.add(MESSAGES.bothInputs, 'input');
  if (options.inputSchema) {
    const raw = rawSchema(build, 'inputSchema', options.inputSchema);
    if (raw) {
      input = Object.freeze({ kind: 'schema', validate: raw.validate, limits });
      inputSchema = raw.schema;
    }
  } else {
    const dto = build.dto('input');
    if (dto) {
      const descriptor = build.describe(dto);
      input = dtoInput(descriptor, limits);
      inputSchema = descriptor.schema;
    }
  }

  let output: OutputDefinition = { kind: 'none' };
  let outputSchema: JsonSchema | undefined;
  if (options.output && options.outputSchema) build.add(MESSAGES.bothInputs, 'output');
  if (options.outputSchema) {
    const raw = rawSchema(build, 'outputSchema', options.outputSchema);
    if (raw) {
      output = Object.freeze({ kind: 'schema', validate: raw.validate as JsonValidator });
      outputSchema = raw.schema;
    }
  } else if (options.output) {
    const dto = explicitDto(options.output, 'output', build.report);
    if (dto) {
      output = Object.freeze({ kind: 'dto', dto });
      outputSchema = build.describe(dto).schema;
    }
  }

  const headers = headerParamsOf(inputSchema);
  if ('problem' in headers) build.add(MESSAGES.headerParamInvalid, headers.problem);

  const plan = build.plan(name, method as Method, input, input.kind !== 'none');
  if (!build.sound) return undefined;

  const descriptor: Tool = { name, description: options.description, inputSchema: inputSchema as Tool['inputSchema'] };
  if (options.title) descriptor.title = options.title;
  if (outputSchema) descriptor.outputSchema = outputSchema as Tool['outputSchema'];
  if (options.annotations) descriptor.annotations = { ...options.annotations };
  if (options.icons) descriptor.icons = [...options.icons];
  if (options._meta) descriptor._meta = { ...options._meta };
  // 2025-11-25 tasks utility: a tool without `execution` is 'forbidden' to run as a task.
  if (taskSupport !== 'forbidden') descriptor.execution = { taskSupport };

  return Object.freeze({
    name,
    where: build.where,
    serverClass,
    descriptor: deepFreeze(descriptor),
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    input,
    output,
    limits,
    taskSupport,
    taskRetries,
    ...(taskStart === 'continueAsTask' ? { taskStart } : {}),
    methodName: args.methodName,
    plan,
    ...('params' in headers && headers.params.length > 0 ? { headerParams: Object.freeze(headers.params) } : {}),
  });
}
