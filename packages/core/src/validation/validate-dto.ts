import { ArmatureBuildError } from '../messages/build-error.js';
import type { ArgumentLimits, Constructor } from '../metadata/metadata-args.js';
import { DEFAULT_ARGUMENT_LIMITS } from './argument-limits.js';
import { describeDto } from './dto-descriptor.js';
import type { ValidationOutcome } from './dto-validator.js';
import { prepareArguments } from './prepare-arguments.js';

/**
 * Runs exactly the checks a tool call runs on its arguments (limits, the shape of the advertised
 * schema, then class-transformer and class-validator) and returns the DTO instance or the
 * `path: message` issues. For tests and for code that accepts DTO-shaped data elsewhere. Throws
 * `ArmatureBuildError` when `dto` itself cannot be used (the same problems start-up reports).
 *
 * @example
 * ```ts
 * const outcome = await validateDto(SearchInput, { repo: 'a/b', query: 'x' });
 * if (!outcome.ok) console.error(outcome.issues.map((i) => `${i.path}: ${i.message}`));
 * ```
 */
export async function validateDto<T extends object>(
  dto: Constructor<T>,
  plain: unknown,
  limits?: ArgumentLimits,
): Promise<ValidationOutcome<T>> {
  const descriptor = describeDto(dto);
  if (descriptor.problems.length > 0) {
    throw new ArmatureBuildError(
      descriptor.problems.map((p) => ({ where: dto.name, ...p })),
      `${dto.name} is not a valid DTO`,
      'in the class',
    );
  }
  return (await prepareArguments(
    { kind: 'dto', dto: descriptor, limits: { ...DEFAULT_ARGUMENT_LIMITS, ...limits } },
    plain,
  )) as ValidationOutcome<T>;
}
