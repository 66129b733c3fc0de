import { type Resource, type ResourceTemplateType, UriTemplate } from '@modelcontextprotocol/server';
import { MESSAGES } from '../messages/message-catalog.js';
import type { Constructor, HandlerMetadataArgs } from '../metadata/metadata-args.js';
import type { DtoDescriptor } from '../validation/dto-descriptor.js';
import type { PlanContext } from './build-call-plan.js';
import { buildCompletions } from './build-completions.js';
import type { ResourceDefinition, ResourceTemplateDefinition } from './definitions.js';
import { deepFreeze, dtoInput, HandlerBuild, withCommon } from './handler-build.js';

/** A `@Resource` method as a frozen definition, or undefined after reporting its problems. */
export function buildResource(
  planning: PlanContext,
  serverClass: Constructor,
  args: HandlerMetadataArgs<'resource'>,
): ResourceDefinition | undefined {
  const build = new HandlerBuild(planning, serverClass, args);
  const { options } = args;
  const method = build.method();
  if (typeof options.uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(options.uri))
    build.add(MESSAGES.resourceUriInvalid, String(options.uri));
  if (typeof options.name !== 'string' || options.name === '') build.add(MESSAGES.nameMissing, 'resource');
  if (!build.sound || !method) return undefined;
  const plan = build.plan(options.uri, method, { kind: 'none' }, false);
  if (!build.sound) return undefined;
  const descriptor: Resource = withCommon({ uri: options.uri, name: options.name } as Resource, options);
  if (options.mimeType) descriptor.mimeType = options.mimeType;
  if (options.size !== undefined) descriptor.size = options.size;
  if (options.annotations) descriptor.annotations = { ...options.annotations };
  return Object.freeze({
    uri: options.uri,
    where: build.where,
    serverClass,
    descriptor: deepFreeze(descriptor),
    methodName: args.methodName,
    plan,
  });
}

/** A `@ResourceTemplate` method as a frozen definition, or undefined after reporting its problems. */
export function buildResourceTemplate(
  planning: PlanContext,
  serverClass: Constructor,
  args: HandlerMetadataArgs<'resourceTemplate'>,
): ResourceTemplateDefinition | undefined {
  const build = new HandlerBuild(planning, serverClass, args);
  const { options } = args;
  const method = build.method();
  let template: UriTemplate | undefined;
  try {
    template = new UriTemplate(options.uriTemplate);
  } catch (error) {
    build.add(MESSAGES.uriTemplateInvalid, String(options.uriTemplate), (error as Error).message);
  }
  if (typeof options.name !== 'string' || options.name === '') build.add(MESSAGES.nameMissing, 'resourceTemplate');
  const params = build.dto('params');
  if (!template || !method || params === undefined || !options.name) return undefined;

  const variables = template.variableNames;
  let descriptorOfParams: DtoDescriptor | undefined;
  if (params) {
    descriptorOfParams = build.describe(params);
    const properties = Object.keys((descriptorOfParams.schema.properties as object) ?? {});
    const unbound = variables.find((variable) => !properties.includes(variable));
    if (unbound !== undefined) {
      build.add(MESSAGES.templateVariableUnbound, unbound, params.name);
      return undefined;
    }
  } else if (variables.length > 0) {
    build.add(MESSAGES.templateWithoutParams, variables);
    return undefined;
  }
  const completions = buildCompletions(build, params);
  const plan = build.plan(options.name, method, descriptorOfParams ? dtoInput(descriptorOfParams) : { kind: 'none' }, params !== null);
  const descriptor: ResourceTemplateType = withCommon(
    { uriTemplate: options.uriTemplate, name: options.name } as ResourceTemplateType,
    options,
  );
  if (options.mimeType) descriptor.mimeType = options.mimeType;
  if (options.annotations) descriptor.annotations = { ...options.annotations };
  if (!build.sound) return undefined;
  return Object.freeze({
    name: options.name,
    where: build.where,
    serverClass,
    descriptor: deepFreeze(descriptor),
    template,
    ...(params ? { params } : {}),
    completions,
    methodName: args.methodName,
    plan,
  });
}
