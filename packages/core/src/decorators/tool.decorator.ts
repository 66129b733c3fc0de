import type { ToolOptions } from '../metadata/metadata-args.js';
import { handlerMethod } from './handler-method.js';

/**
 * Declares a method of an `@McpServer` class as a tool. The method receives the validated input
 * DTO instance first (when it has one) and the request `Context` last.
 *
 * @example
 * ```ts
 * @Tool({ description: 'Add two numbers', annotations: { readOnlyHint: true } })
 * add(input: AddInput, ctx: Context) { return input.a + input.b; }
 * ```
 */
export function Tool(options: ToolOptions): MethodDecorator {
  return handlerMethod('tool', options);
}
