import { ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';

/** One property's schema while it is written. */
export type PropertySchema = Record<string, unknown>;
type ConstraintHandler = (schema: PropertySchema, constraints: readonly unknown[]) => void;

const setType =
  (type: string): ConstraintHandler =>
  (schema) => {
    schema.type = type;
  };
const setFormat =
  (format: string): ConstraintHandler =>
  (schema) => {
    schema.type ??= 'string';
    schema.format = format;
  };

/**
 * How each class-validator constraint shows in JSON Schema. Constraints not listed here still
 * validate; they just add nothing to the advertised schema.
 */
const CONSTRAINTS: Record<string, ConstraintHandler> = {
  isString: setType('string'),
  isNumber: setType('number'),
  isInt: setType('integer'),
  isBoolean: setType('boolean'),
  isArray: setType('array'),
  isObject: setType('object'),
  isEnum: (schema, [entity, values]) => {
    schema.enum = Array.isArray(values) ? [...values] : enumValues(entity);
  },
  isIn: (schema, [values]) => {
    schema.enum = [...(values as unknown[])];
  },
  equals: (schema, [value]) => {
    schema.const = value;
  },
  min: (schema, [value]) => {
    schema.minimum = value;
  },
  max: (schema, [value]) => {
    schema.maximum = value;
  },
  isPositive: (schema) => {
    schema.exclusiveMinimum = 0;
  },
  isNegative: (schema) => {
    schema.exclusiveMaximum = 0;
  },
  minLength: (schema, [value]) => {
    schema.minLength = value;
  },
  maxLength: (schema, [value]) => {
    schema.maxLength = value;
  },
  isLength: (schema, [min, max]) => {
    schema.minLength = min;
    if (typeof max === 'number') schema.maxLength = max;
  },
  matches: (schema, [pattern]) => {
    schema.type ??= 'string';
    schema.pattern = pattern instanceof RegExp ? pattern.source : String(pattern);
  },
  isNotEmpty: (schema) => {
    if (schema.type === 'string' || schema.type === undefined) schema.minLength = Math.max(1, Number(schema.minLength ?? 0));
  },
  // Only formats whose every accepted value the advertised format accepts too (a differential
  // test checks each against Ajv + ajv-formats). class-validator's isEmail (UTF-8 local parts),
  // isURL (no scheme needed) and isISO8601/isDateString (date-only, week dates) accept more than
  // `email`, `uri` and `date-time`, so they advertise a plain string.
  isUuid: setFormat('uuid'),
  isDate: (schema) => {
    // A Date travels as a string; `@Type(() => Date)` converts it. The format is checked with the
    // shape (against DATE_TIME_PATTERN), before the conversion, because `new Date()` also takes
    // "Dec 24 2026" and 2026-02-30.
    schema.type = 'string';
    schema.format = 'date-time';
  },
  isAlpha: (schema) => {
    schema.type ??= 'string';
    schema.pattern ??= '^[A-Za-z]+$';
  },
  isAlphanumeric: (schema) => {
    schema.type ??= 'string';
    schema.pattern ??= '^[A-Za-z0-9]+$';
  },
  arrayMinSize: (schema, [value]) => {
    schema.minItems = value;
  },
  arrayMaxSize: (schema, [value]) => {
    schema.maxItems = value;
  },
  arrayNotEmpty: (schema) => {
    schema.minItems = Math.max(1, Number(schema.minItems ?? 0));
  },
  arrayUnique: (schema) => {
    schema.uniqueItems = true;
  },
};

function enumValues(entity: unknown): unknown[] {
  if (!entity || typeof entity !== 'object') return [];
  // Numeric TS enums carry reverse mappings (`{ A: 0, '0': 'A' }`): keep the forward values only.
  const record = entity as Record<string, unknown>;
  return Object.keys(record)
    .filter((key) => !(typeof record[record[key] as string] === 'number' && Number.isNaN(Number(key)) === false))
    .map((key) => record[key]);
}

/** The JSON type all of an enum's values share, if any. */
export function typeOfValues(values: unknown[]): string | undefined {
  if (values.length === 0) return undefined;
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => Number.isInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'number')) return 'number';
  if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  return undefined;
}

/** The JSON type of a property whose TypeScript type (design:type) is a built-in. */
export const BUILTIN_TYPES = new Map<unknown, string>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
  [Array, 'array'],
  [Object, 'object'],
]);

/** What a property's class-validator decorators say, as JSON Schema keywords. */
export interface PropertyKeywords {
  /** The keywords of the property itself. */
  readonly schema: PropertySchema;
  /** The keywords of its items, from the `{ each: true }` constraints. */
  readonly items: PropertySchema;
  /** `@IsOptional()`. */
  readonly optional: boolean;
  /** `@ValidateNested()`. */
  readonly nested: boolean;
  /** A constraint or `@ValidateNested` with `{ each: true }`: the property is an array. */
  readonly each: boolean;
}

/** The keywords of one property's validation metadata, in declaration order. */
export function propertyKeywords(metas: readonly ValidationMetadata[]): PropertyKeywords {
  const schema: PropertySchema = {};
  const items: PropertySchema = {};
  let optional = false;
  let nested = false;
  let each = false;

  for (const meta of metas) {
    if (meta.type === ValidationTypes.CONDITIONAL_VALIDATION && meta.name === 'isOptional') optional = true;
    else if (meta.type === ValidationTypes.NESTED_VALIDATION) {
      nested = true;
      each ||= meta.each === true;
    } else if (meta.type === ValidationTypes.CUSTOM_VALIDATION && meta.name) {
      const handler = CONSTRAINTS[meta.name];
      if (!handler) continue;
      if (meta.each) {
        each = true;
        handler(items, meta.constraints ?? []);
      } else handler(schema, meta.constraints ?? []);
    }
  }
  return { schema, items, optional, nested, each };
}
