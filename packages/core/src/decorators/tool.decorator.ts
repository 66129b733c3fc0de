import type { Constructor, ToolOptions } from '../metadata/metadata-args.js';
import { getMetadataStorage } from '../metadata/metadata-storage.js';

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
  return (target, propertyKey, descriptor) => {
    const isStatic = typeof target === 'function';
    const owner = (isStatic ? target : target.constructor) as Constructor;
    const method = descriptor.value;
    getMetadataStorage().collectTool({
      target: owner,
      methodName: String(propertyKey),
      options: { ...options },
      // Read once here: the runtime never touches Reflect.
      paramTypes: Reflect.getMetadata?.('design:paramtypes', target, propertyKey) as unknown[] | undefined,
      declaredParamCount: typeof method === 'function' ? method.length : 0,
      isStatic,
    });
  };
}
