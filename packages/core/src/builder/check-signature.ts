import { Context } from '../context/context.js';
import type { BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import type { HandlerMetadataArgs } from '../metadata/metadata-args.js';

const PRIMITIVES = new Map<unknown, string>([
  [String, 'a string'],
  [Number, 'a number'],
  [Boolean, 'a boolean'],
  [Array, 'an array'],
  [Symbol, 'a symbol'],
  [BigInt, 'a bigint'],
]);
/** Types that say nothing: an interface, a type alias, a union, or `Context` imported with `import type`. */
const UNREFLECTED = new Set<unknown>([Object, Function, undefined]);

function isClass(type: unknown): type is abstract new () => unknown {
  return typeof type === 'function' && type !== Context && !PRIMITIVES.has(type) && !UNREFLECTED.has(type);
}

/** The option that gave the handler its input, for the message about a Context placed first. */
function inputOption(args: HandlerMetadataArgs): string {
  if (args.kind === 'prompt') return 'args';
  if (args.kind === 'resourceTemplate') return 'params';
  return (args.options as { inputSchema?: unknown }).inputSchema ? 'inputSchema' : 'input';
}

/**
 * Reports the first way the method's parameters differ from how Armature calls it: `(input, ctx)`
 * when it takes an input, `(ctx)` otherwise. Read from `design:paramtypes` when the compiler
 * emitted them, else from the declared parameter count. Returns the problem, or undefined. A parameter reflected as `Object` is let
 * through: it may be the Context imported with `import type`.
 */
export function checkSignature(args: HandlerMetadataArgs, takesInput: boolean, where: string): BuildProblem | undefined {
  const kind = args.kind;
  const served = takesInput ? 2 : 1;
  const types = args.paramTypes;
  if (types === undefined) {
    return args.declaredParamCount > served
      ? problem(MESSAGES.handlerParameterUnserved, where, kind, `the method declares ${args.declaredParamCount} parameters`, served + 1)
      : undefined;
  }
  const count = types.length;
  const contextAt = types.indexOf(Context);
  if (takesInput && contextAt === 0) {
    return problem(MESSAGES.contextFirstWithInput, where, kind, inputOption(args));
  }
  const second = types[1];
  if (takesInput && isClass(second)) {
    return problem(MESSAGES.handlerTakesTwoDtos, where, kind, second.name || 'an anonymous class');
  }
  if (contextAt >= 0 && contextAt !== count - 1) {
    return problem(MESSAGES.contextNotLast, where, kind, contextAt + 1, count);
  }
  const position = takesInput ? 2 : 1;
  const atContext = types[position - 1];
  if (position <= count && atContext !== Context && !UNREFLECTED.has(atContext)) {
    const what = PRIMITIVES.get(atContext) ?? `${article((atContext as Function).name)} ${(atContext as Function).name}`;
    return problem(MESSAGES.handlerParameterUnserved, where, kind, `parameter ${position} is ${what}`, position);
  }
  if (count > served) return problem(MESSAGES.handlerParameterUnserved, where, kind, `the method declares ${count} parameters`, served + 1);
  return undefined;
}

function article(word: string): string {
  return /^[AEIOaeio]/.test(word) ? 'an' : 'a'; // a URL, a User, an Address
}
