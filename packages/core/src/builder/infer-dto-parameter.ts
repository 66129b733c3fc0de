import { Context } from '../context/context.js';
import { MESSAGES, type MessageDefinition } from '../messages/message-catalog.js';
import type { Constructor, HandlerMetadataArgs } from '../metadata/metadata-args.js';

const PRIMITIVE_TYPES = new Set<unknown>([String, Number, Boolean, Array, Symbol, BigInt]);
const UNREFLECTED = new Set<unknown>([Object, Function, undefined]);

/** Reports one problem against the handler being built. */
export type Report = (message: string, fix: string, code?: string) => void;

function say<A extends readonly unknown[]>(report: Report, definition: MessageDefinition<A>, ...args: NoInfer<A>): void {
  const { message, fix } = definition.render(...args);
  report(message, fix, definition.code);
}

/**
 * The DTO class a handler method takes as its first parameter, from the `design:paramtypes`
 * recorded at decoration: `null` when the method takes none (no parameter, or only the Context),
 * `undefined` after reporting why it cannot be known. `option` names the decorator option that
 * names the DTO explicitly (`input`, `params`, `args`), for the fix.
 */
export function inferDtoParameter(args: HandlerMetadataArgs, option: string, report: Report): Constructor | null | undefined {
  const first = args.paramTypes?.[0];
  if (args.paramTypes === undefined) {
    if (args.declaredParamCount === 0) return null;
    say(report, MESSAGES.noParamMetadata, args.kind, option);
    return undefined;
  }
  if (args.declaredParamCount === 0 || first === Context || args.paramTypes.length === 0) return null;
  if (UNREFLECTED.has(first)) {
    say(report, MESSAGES.paramNotReflected, args.kind, option);
    return undefined;
  }
  if (PRIMITIVE_TYPES.has(first)) {
    say(report, MESSAGES.paramPrimitive, (first as Function).name.toLowerCase());
    return undefined;
  }
  return first as Constructor;
}

/** A DTO named explicitly by a decorator option (`input: () => Dto`), checked. */
export function explicitDto(thunk: unknown, option: string, report: Report): Constructor | undefined {
  const dto = typeof thunk === 'function' ? (thunk as () => unknown)() : undefined;
  if (typeof dto !== 'function') {
    say(report, MESSAGES.dtoThunkInvalid, option);
    return undefined;
  }
  return dto as Constructor;
}
