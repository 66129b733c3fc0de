import { getMetadataStorage as getValidationStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import type { Constructor } from '../metadata/metadata-args.js';
import { findDeclaredType } from '../seams/class-transformer.js';
import { BUILTIN_TYPES } from './constraint-keywords.js';

/** Validation metadata of a DTO (and its ancestors), grouped by property, in declaration order. */
export function validationMetadataOf(dto: Constructor): Map<string, ValidationMetadata[]> {
  const metas = getValidationStorage().getTargetValidationMetadatas(dto, '', true, false);
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const meta of metas) {
    let list = byProperty.get(meta.propertyName);
    if (!list) {
      list = [];
      byProperty.set(meta.propertyName, list);
    }
    list.push(meta);
  }
  return byProperty;
}

/**
 * The validator a property without one needs, named after what it holds: its initial value,
 * then its `@Type(() => X)`, then its TypeScript type (design:type).
 */
export function suggestedValidator(dto: Constructor, name: string, initial: unknown): string {
  if (typeof initial === 'boolean') return '@IsBoolean()';
  if (typeof initial === 'number') return Number.isInteger(initial) ? '@IsInt()' : '@IsNumber()';
  if (typeof initial === 'string') return '@IsString()';
  if (initial instanceof Date) return '@IsDate()';
  const declared = findDeclaredType(dto, name);
  const designType = Reflect.getMetadata?.('design:type', dto.prototype, name);
  if (declared === Date || designType === Date) return '@IsDate()';
  if (typeof declared === 'function' && !BUILTIN_TYPES.has(declared)) {
    return designType === Array || Array.isArray(initial) ? '@ValidateNested({ each: true })' : '@ValidateNested()';
  }
  if (Array.isArray(initial) || designType === Array) return '@IsArray()';
  if (designType === Boolean) return '@IsBoolean()';
  if (designType === Number) return '@IsNumber()';
  return '@IsString()';
}
