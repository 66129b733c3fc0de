import { type Constructor, formatIssue, validateDto } from '@armature/core';
import { type ArgumentMetadata, BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

const PLAIN_TYPES = new Set<unknown>([String, Number, Boolean, Object, Array]);

/**
 * Validates a controller's `@Body()` DTO with exactly the checks a tool runs on the same DTO, so
 * REST and MCP answer the same problems for the same bad input: a 400 whose `message` lists the
 * `path: message` lines an MCP client reads after `Invalid arguments for tool "...":`. Nest's
 * stock `ValidationPipe` words them differently and reports another subset (every constraint of
 * every field, where Armature first checks the shape the tool advertises).
 *
 * @example
 * ```ts
 * app.useGlobalPipes(new ArmatureValidationPipe());
 * ```
 */
@Injectable()
export class ArmatureValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const dto = metadata.metatype;
    if (metadata.type !== 'body' || !dto || PLAIN_TYPES.has(dto) || !hasValidators(dto)) return value;
    const outcome = await validateDto(dto as Constructor<object>, value);
    if (outcome.ok) return outcome.value;
    throw new BadRequestException(outcome.issues.map(formatIssue));
  }
}

function hasValidators(dto: Function): boolean {
  return getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false).length > 0;
}
