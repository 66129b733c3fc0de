import type { Prompt, PromptArgument } from '@modelcontextprotocol/server';
import { MESSAGES } from '../messages/message-catalog.js';
import type { Constructor, HandlerMetadataArgs } from '../metadata/metadata-args.js';
import type { DtoDescriptor } from '../validation/dto-descriptor.js';
import type { PlanContext } from './build-call-plan.js';
import { buildCompletions } from './build-completions.js';
import type { PromptDefinition } from './definitions.js';
import { deepFreeze, dtoInput, HandlerBuild, withCommon } from './handler-build.js';

/** A `@Prompt` method as a frozen definition, or undefined after reporting its problems. */
export function buildPrompt(
  planning: PlanContext,
  serverClass: Constructor,
  args: HandlerMetadataArgs<'prompt'>,
): PromptDefinition | undefined {
  const build = new HandlerBuild(planning, serverClass, args);
  const { options } = args;
  const name = options.name ?? args.methodName;
  const method = build.method();
  build.checkName('prompt', name);
  if (typeof options.description !== 'string' || options.description.trim() === '') build.add(MESSAGES.promptDescriptionMissing, name);
  const dto = build.dto('args');
  if (dto === undefined || !build.sound || !method) return undefined;

  const promptArguments: PromptArgument[] = [];
  let descriptorOfArgs: DtoDescriptor | undefined;
  if (dto) {
    descriptorOfArgs = build.describe(dto);
    const schema = descriptorOfArgs.schema;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [property, propertySchema] of Object.entries((schema.properties as Record<string, Record<string, unknown>>) ?? {})) {
      // Prompt arguments travel as strings (MCP PromptArgument); anything else cannot be sent.
      const type = propertySchema.type;
      if (type !== undefined && type !== 'string') {
        build.add(MESSAGES.promptArgumentNotString, dto.name, property, String(type));
        continue;
      }
      const argument: PromptArgument = { name: property, required: required.has(property) };
      if (typeof propertySchema.description === 'string') argument.description = propertySchema.description;
      promptArguments.push(argument);
    }
  }
  const completions = buildCompletions(build, dto);
  const plan = build.plan(name, method, descriptorOfArgs ? dtoInput(descriptorOfArgs) : { kind: 'none' }, dto !== null);
  if (!build.sound) return undefined;
  const descriptor: Prompt = withCommon({ name } as Prompt, options);
  if (dto) descriptor.arguments = promptArguments;
  return Object.freeze({
    name,
    where: build.where,
    serverClass,
    descriptor: deepFreeze(descriptor),
    ...(dto ? { args: dto } : {}),
    completions,
    methodName: args.methodName,
    plan,
  });
}
