import type { Constructor, FieldOptions } from '../metadata/metadata-args.js';
import { getMetadataStorage } from '../metadata/metadata-storage.js';

/**
 * Describes a DTO property for the advertised JSON Schema. Validation still comes from
 * class-validator decorators; `@Field` only adds what the model reads.
 *
 * @example
 * ```ts
 * class SearchInput {
 *   @Field({ description: 'owner/name of the repository' })
 *   @Matches(/^[\w.-]+\/[\w.-]+$/)
 *   repo!: string;
 * }
 * ```
 */
export function Field(options: FieldOptions | string): PropertyDecorator {
  const normalized: FieldOptions = typeof options === 'string' ? { description: options } : { ...options };
  return (target, propertyKey) => {
    getMetadataStorage().collectField({
      target: target.constructor as Constructor,
      propertyName: String(propertyKey),
      options: normalized,
    });
  };
}
