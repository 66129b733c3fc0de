import { MESSAGES, type MessageDefinition, problem } from '../messages/message-catalog.js';
import type { ArgumentLimits, Constructor, HandlerKind, HandlerMetadataArgs, JsonSchema } from '../metadata/metadata-args.js';
import { DEFAULT_ARGUMENT_LIMITS } from '../validation/argument-limits.js';
import { type DtoDescriptor, describeDto } from '../validation/dto-descriptor.js';
import type { InputPlan } from '../validation/prepare-arguments.js';
import { buildCallPlan, type PlanContext } from './build-call-plan.js';
import { checkSignature } from './check-signature.js';
import type { CallPlan } from './definitions.js';
import { explicitDto, inferDtoParameter } from './infer-dto-parameter.js';

export const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
export const EMPTY_INPUT_SCHEMA: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

export type Method = (...args: unknown[]) => unknown;
export type Report = (message: string, fix: string, code?: string) => void;

function suggestName(name: string): string {
  const cleaned = String(name)
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 128);
  return cleaned === '' ? 'my_name' : cleaned;
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

/** The handler being built: where it is, how to report against it, and the shared steps. */
export class HandlerBuild<K extends HandlerKind> {
  readonly where: string;
  private readonly before: number;
  /** Set when the input could not be known (reported): its parameters are then not checked again. */
  private inputUnknown = false;

  constructor(
    readonly planning: PlanContext,
    readonly serverClass: Constructor,
    readonly args: HandlerMetadataArgs<K>,
  ) {
    this.where = `${serverClass.name}.${args.methodName}`;
    this.before = planning.problems.length;
  }

  /** True while nothing was reported against this handler. */
  get sound(): boolean {
    return this.planning.problems.length === this.before;
  }

  readonly report: Report = (message, fix, code) => {
    this.planning.problems.push({ ...(code ? { code } : {}), where: this.where, message, fix });
  };

  add<A extends readonly unknown[]>(definition: MessageDefinition<A>, ...args: NoInfer<A>): void {
    this.planning.problems.push(problem(definition, this.where, ...args));
  }

  /** The decorated method, or undefined after reporting a static or non-method target. */
  method(): Method | undefined {
    if (this.args.isStatic) {
      this.add(MESSAGES.staticHandler, this.args.kind, this.args.methodName);
      return undefined;
    }
    const method = (this.serverClass.prototype as Record<string, unknown>)[this.args.methodName];
    if (typeof method !== 'function') {
      this.add(MESSAGES.notAMethod, this.args.kind);
      return undefined;
    }
    return method as Method;
  }

  checkName(kind: 'tool' | 'prompt', name: string): void {
    if (!NAME_PATTERN.test(name)) this.add(MESSAGES.invalidName, kind, name, suggestName(name));
  }

  /** The DTO the method takes (named by `option`, or its first parameter), null for none, undefined when unknown. */
  dto(option: 'input' | 'params' | 'args'): Constructor | null | undefined {
    const named = (this.args.options as Record<string, unknown>)[option];
    const dto = named ? explicitDto(named, option, this.report) : inferDtoParameter(this.args, option, this.report);
    if (dto === undefined) this.inputUnknown = true;
    return dto;
  }

  /** The descriptor of a DTO, its problems reported against this handler. */
  describe(dto: Constructor): DtoDescriptor {
    const descriptor = describeDto(dto);
    for (const p of descriptor.problems) this.report(p.message, p.fix, p.code);
    return descriptor;
  }

  plan(name: string, method: Method, input: InputPlan, takesInput: boolean): CallPlan {
    const { serverClass, args } = this;
    const unserved = this.inputUnknown ? undefined : checkSignature(args, takesInput, this.where);
    if (unserved) this.planning.problems.push(unserved);
    const { tags } = args.options as { tags?: unknown };
    return buildCallPlan(this.planning, {
      kind: args.kind,
      name,
      serverClass,
      methodName: args.methodName,
      method,
      input,
      takesInput,
      tags,
    });
  }
}

export function withCommon<T extends object>(
  descriptor: T,
  options: { title?: string; description?: string; icons?: unknown[]; _meta?: Record<string, unknown> },
): T {
  const out = descriptor as Record<string, unknown>;
  if (options.title) out.title = options.title;
  if (options.description) out.description = options.description;
  if (options.icons) out.icons = [...options.icons];
  if (options._meta) out._meta = { ...options._meta };
  return descriptor;
}

export function dtoInput(descriptor: DtoDescriptor, limits: Readonly<Required<ArgumentLimits>> = DEFAULT_ARGUMENT_LIMITS): InputPlan {
  return Object.freeze({ kind: 'dto', dto: descriptor, limits });
}
