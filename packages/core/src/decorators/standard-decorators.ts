import { ArmatureBuildError } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';

/** The context a standard (TC39) decorator receives as its second argument. */
interface StandardDecoratorContext {
  readonly kind: string;
  readonly name?: string | symbol;
}

/**
 * Throws when a decorator was called as a standard (TC39) decorator (`(value, context)`), as a
 * compiler without `experimentalDecorators` calls it: it would otherwise fail deep inside with a
 * TypeError. Nothing can be recorded then (no parameter types), so the app cannot start.
 */
export function refuseStandardDecorator(decorator: string, second: unknown): void {
  if (typeof second !== 'object' || second === null || typeof (second as StandardDecoratorContext).kind !== 'string') return;
  const context = second as StandardDecoratorContext;
  const what = context.name === undefined ? `a ${context.kind}` : `${context.kind} "${String(context.name)}"`;
  throw new ArmatureBuildError(
    [problem(MESSAGES.standardDecorators, what, decorator)],
    'Armature cannot start the MCP server',
    'in how the decorators were compiled',
  );
}
