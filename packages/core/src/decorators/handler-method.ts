import type { Constructor, HandlerKind, HandlerOptionsByKind } from '../metadata/metadata-args.js';
import { getMetadataStorage } from '../metadata/metadata-storage.js';
import { refuseStandardDecorator } from './standard-decorators.js';

const DECORATOR_NAMES: Readonly<Record<HandlerKind, string>> = {
  tool: '@Tool',
  resource: '@Resource',
  resourceTemplate: '@ResourceTemplate',
  prompt: '@Prompt',
};

/** The shared body of `@Tool`, `@Resource`, `@ResourceTemplate` and `@Prompt`: record, nothing else. */
export function handlerMethod<K extends HandlerKind>(kind: K, options: HandlerOptionsByKind[K]): MethodDecorator {
  return (target, propertyKey, descriptor) => {
    refuseStandardDecorator(DECORATOR_NAMES[kind], propertyKey);
    const isStatic = typeof target === 'function';
    const owner = (isStatic ? target : target.constructor) as Constructor;
    const method = descriptor.value;
    getMetadataStorage().collectHandler({
      kind,
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
