import type { ArgumentLimits, Constructor } from '../metadata/metadata-args.js';
import { DtoSchemaWriter, structuralSchema } from '../schema/dto-to-json-schema.js';
import { checkArgumentLimits, DEFAULT_ARGUMENT_LIMITS } from './argument-limits.js';
import { type ValidationOutcome, validateInput } from './dto-validator.js';
import { compileShapeCheck, type JsonValidator } from './json-schema-validator.js';

const shapes = new WeakMap<Constructor, JsonValidator>();

function shapeOf(dto: Constructor): JsonValidator {
  let shape = shapes.get(dto);
  if (!shape) {
    const writer = new DtoSchemaWriter();
    const schema = writer.write(dto);
    if (writer.problems.length > 0) {
      throw new TypeError(`${dto.name} is not a valid DTO:\n${writer.problems.map((p) => `  - ${p.message} (fix: ${p.fix})`).join('\n')}`);
    }
    shape = compileShapeCheck(structuralSchema(schema));
    shapes.set(dto, shape);
  }
  return shape;
}

/**
 * Runs exactly the checks a tool call runs on its arguments (limits, the shape of the advertised
 * schema, then class-transformer and class-validator) and returns the DTO instance or the
 * `path: message` issues. For tests and for code that accepts DTO-shaped data elsewhere.
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
  const limit = checkArgumentLimits(plain, { ...DEFAULT_ARGUMENT_LIMITS, ...limits });
  if (limit) return { ok: false, issues: [limit] };
  const shape = shapeOf(dto)(plain);
  if (!shape.ok) return shape;
  return validateInput(dto, plain);
}
