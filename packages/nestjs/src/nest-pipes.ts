import { type ArgumentMetadata, type PipeTransform, ValidationPipe } from '@nestjs/common';
import { ArmatureValidationPipe } from './armature-validation.pipe.js';
import type { NestRequestScope } from './nest-container-adapter.js';
import { type EnhancerRef, NestEnhancers } from './nest-enhancers.js';

/** Armature validates tool input with the DTO's own rules: these pipes have nothing left to do on MCP. */
const VALIDATION_PIPES: Function[] = [ValidationPipe, ArmatureValidationPipe];

/** True for `ValidationPipe`, `ArmatureValidationPipe` and their subclasses, given as a class or an instance. */
export function isValidationPipe(pipe: unknown): boolean {
  const type = typeof pipe === 'function' ? pipe : (pipe as object | null)?.constructor;
  return typeof type === 'function' && VALIDATION_PIPES.some((validation) => type === validation || type.prototype instanceof validation);
}

/**
 * Runs Nest's pipes (global, then the server class's, then the method's, as on a controller) on a
 * tool's validated input, as on a `@Body()` parameter whose type is the DTO, and returns what the
 * last one returned. Validation pipes are passed over: the DTO was validated once, by Armature,
 * with the same class-validator rules and Armature's messages.
 */
export async function pipedInput(
  enhancers: readonly EnhancerRef<PipeTransform>[],
  input: unknown,
  scope: NestRequestScope,
): Promise<unknown> {
  const metadata: ArgumentMetadata = {
    type: 'body',
    metatype: typeof input === 'object' && input !== null ? (input.constructor as ArgumentMetadata['metatype']) : undefined,
    data: undefined,
  };
  let value = input;
  for (const ref of enhancers) {
    const pipe = await NestEnhancers.instanceOf(ref, scope);
    if (isValidationPipe(pipe)) continue;
    value = await pipe.transform(value, metadata);
  }
  return value;
}
