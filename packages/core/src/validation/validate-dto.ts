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
export function validateDto<T extends object>(dto: Constructor<T>, plain: unknown, limits?: ArgumentLimits): Promise<ValidationOutcome<T>> {
  // Not an async function: a compiled DTO answers synchronously, and one promise is all it costs.
  // Anything thrown (a transform or constraint of the DTO) still rejects the promise, as before.
  try {
    const descriptor = describeDto(dto);
    if (descriptor.problems.length > 0) {
      return Promise.reject(
        new ArmatureBuildError(
          descriptor.problems.map((p) => ({ where: dto.name, ...p })),
          `${dto.name} is not a valid DTO`,
          'in the class',
        ),
      );
    }
    const given = limits === undefined ? DEFAULT_ARGUMENT_LIMITS : { ...DEFAULT_ARGUMENT_LIMITS, ...limits };
    const outcome = prepareArguments({ kind: 'dto', dto: descriptor, limits: given }, plain);
    return Promise.resolve(outcome as ValidationOutcome<T> | Promise<ValidationOutcome<T>>);
  } catch (error) {
    return Promise.reject(error);
  }
}
