import { getMetadataStorage as getValidationStorage, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import { MESSAGES, type MessageDefinition } from '../messages/message-catalog.js';
import type { Constructor, JsonSchema } from '../metadata/metadata-args.js';
import { getMetadataStorage } from '../metadata/metadata-storage.js';
import { findDeclaredType } from '../seams/class-transformer.js';
import { HEADER_PARAM_KEYWORD } from './header-params.js';

// RFC 3339 calendar dates, month lengths and leap years included (what ajv-formats' `date` checks).
const MONTH_DAY = '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))';
const LEAP_DAY = '(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29';
const CALENDAR_DATE = `(?:\\d{4}-${MONTH_DAY}|${LEAP_DAY})`;

/**
 * The date-times both ajv-formats' `date-time` and JavaScript's `Date` accept: RFC 3339 with a
 * time zone, minus the forms `Date` refuses (leap second 60, a `+hh` offset without minutes).
 * The shape check tests a `format: date-time` value against it; it is never advertised (about 330
 * characters the model would read as tokens, where the format name says the same).
 */
export const DATE_TIME_PATTERN = `^${CALENDAR_DATE}[Tt ](?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:[Zz]|[+-](?:[01]\\d|2[0-3]):?[0-5]\\d)$`;

/** `YYYY-MM-DD`: with `@IsISO8601({ strict: true })` a property advertises `format: date`. */
export const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

/** A problem found while describing a DTO; the builder prefixes it with `Class.method`. */
export interface SchemaProblem {
  readonly code: string;
  readonly message: string;
  readonly fix: string;
}

function schemaProblem<A extends readonly unknown[]>(definition: MessageDefinition<A>, ...args: NoInfer<A>): SchemaProblem {
  return { code: definition.code, ...definition.render(...args) };
}

type PropertySchema = Record<string, unknown>;
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

function typeOfValues(values: unknown[]): string | undefined {
  if (values.length === 0) return undefined;
  if (values.every((v) => typeof v === 'string')) return 'string';
  if (values.every((v) => Number.isInteger(v))) return 'integer';
  if (values.every((v) => typeof v === 'number')) return 'number';
  if (values.every((v) => typeof v === 'boolean')) return 'boolean';
  return undefined;
}

const BUILTIN_TYPES = new Map<unknown, string>([
  [String, 'string'],
  [Number, 'number'],
  [Boolean, 'boolean'],
  [Array, 'array'],
  [Object, 'object'],
]);

function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 16) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJsonValue(v, depth + 1));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value as object).every((v) => isJsonValue(v, depth + 1));
  }
  return false;
}

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
 * Turns DTO classes into one self-contained JSON Schema 2020-12 document: the root DTO inline,
 * nested DTOs under `$defs` (named after the class, suffixed when two different classes share a
 * name), referenced as `#/$defs/Name`.
 */
export class DtoSchemaWriter {
  private readonly defNames = new Map<Constructor, string>();
  private readonly defs: Record<string, JsonSchema> = {};
  private readonly usedNames = new Set<string>();
  readonly problems: SchemaProblem[] = [];

  /**
   * The complete schema for `dto`, with its `$defs`. No `$schema`: MCP reads an embedded schema
   * without one as JSON Schema 2020-12 (SEP-1613), and the URL would add about 60 bytes to every
   * tool of every `tools/list`, which clients often hand to the model as tokens.
   */
  write(dto: Constructor): JsonSchema {
    const document: JsonSchema = this.objectSchema(dto);
    if (Object.keys(this.defs).length > 0) document.$defs = this.defs;
    return document;
  }

  private refFor(dto: Constructor): JsonSchema {
    let name = this.defNames.get(dto);
    if (!name) {
      const base = dto.name || 'Anonymous';
      name = base;
      for (let n = 2; this.usedNames.has(name); n++) name = `${base}${n}`;
      this.usedNames.add(name);
      this.defNames.set(dto, name);
      this.defs[name] = {}; // placeholder first: a DTO may refer to itself
      this.defs[name] = this.objectSchema(dto);
    }
    return { $ref: `#/$defs/${name}` };
  }

  private objectSchema(dto: Constructor): JsonSchema {
    const metadata = validationMetadataOf(dto);
    const fields = getMetadataStorage();
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const defaults = readDefaults(dto);

    if (metadata.size === 0) {
      this.problems.push(schemaProblem(MESSAGES.dtoWithoutValidators, dto.name));
    }

    for (const name of fields.fieldNamesOf(dto)) {
      if (!metadata.has(name)) {
        this.problems.push(
          schemaProblem(MESSAGES.fieldWithoutValidator, dto.name, name, suggestedValidator(dto, name, defaults.get(name))),
        );
      }
    }

    for (const [name, value] of defaults) {
      if (!metadata.has(name)) {
        this.problems.push(schemaProblem(MESSAGES.initialValueWithoutValidator, dto.name, name, suggestedValidator(dto, name, value)));
      }
    }

    for (const [name, metas] of metadata) {
      const { schema, optional } = this.propertySchema(dto, name, metas);
      const typed = schema.type !== undefined || schema.$ref !== undefined || schema.enum !== undefined || schema.const !== undefined;
      const allowAnything = metas.some((m) => m.type === ValidationTypes.WHITELIST);
      if (!typed && !allowAnything && !Reflect.hasMetadata('design:type', dto.prototype, name)) {
        this.problems.push(schemaProblem(MESSAGES.propertyTypeUnknown, dto.name, name));
      }
      const field = fields.fieldOf(dto, name)?.options;
      if (field?.title) schema.title = field.title;
      if (field?.description) schema.description = field.description;
      if (field?.examples) schema.examples = [...field.examples];
      if (field?.deprecated) schema.deprecated = true;
      if (field?.header !== undefined) schema[HEADER_PARAM_KEYWORD] = field.header;
      const fallback = defaults.get(name);
      if (fallback !== undefined && isJsonValue(fallback)) schema.default = fallback;
      properties[name] = schema;
      if (!optional && schema.default === undefined) required.push(name);
    }

    const result: JsonSchema = { type: 'object', properties };
    if (required.length > 0) result.required = required;
    result.additionalProperties = false;
    return result;
  }

  private propertySchema(dto: Constructor, name: string, metas: ValidationMetadata[]): { schema: PropertySchema; optional: boolean } {
    const schema: PropertySchema = {};
    const items: PropertySchema = {};
    let optional = false;
    let nested = false;
    let eachSeen = false;

    for (const meta of metas) {
      if (meta.type === ValidationTypes.CONDITIONAL_VALIDATION && meta.name === 'isOptional') optional = true;
      else if (meta.type === ValidationTypes.NESTED_VALIDATION) nested = true;
      else if (meta.type === ValidationTypes.CUSTOM_VALIDATION && meta.name) {
        const handler = CONSTRAINTS[meta.name];
        if (!handler) continue;
        if (meta.each) {
          eachSeen = true;
          handler(items, meta.constraints ?? []);
        } else handler(schema, meta.constraints ?? []);
      }
    }

    const designType = Reflect.getMetadata?.('design:type', dto.prototype, name);
    const declared = findDeclaredType(dto, name);
    const field = getMetadataStorage().fieldOf(dto, name)?.options;

    if (nested) {
      // Without @Type, class-transformer (implicit conversion off) leaves the value a plain object,
      // which class-validator cannot check: require it rather than guess from design:type.
      const target = declared as Constructor | undefined;
      if (typeof target !== 'function') {
        this.problems.push(schemaProblem(MESSAGES.nestedWithoutType, dto.name, name));
      } else if (designType === Array || schema.type === 'array') {
        schema.type = 'array';
        schema.items = this.refFor(target);
      } else {
        Object.assign(schema, this.refFor(target));
      }
      return { schema, optional };
    }

    if (schema.format === 'date-time' && declared !== Date) {
      this.problems.push(schemaProblem(MESSAGES.dateWithoutType, dto.name, name));
    }
    const strictIso = metas.some((m) => m.name === 'isIso8601' && (m.constraints?.[0] as { strict?: boolean } | undefined)?.strict);
    if (strictIso && schema.pattern === DATE_PATTERN) schema.format = 'date';

    if (schema.type === undefined && Array.isArray(schema.enum)) {
      const type = typeOfValues(schema.enum);
      if (type) schema.type = type;
    }
    if (schema.type === undefined && BUILTIN_TYPES.has(designType) && designType !== Object) {
      schema.type = BUILTIN_TYPES.get(designType);
    }
    if (schema.type === 'array' || designType === Array || eachSeen) {
      schema.type = 'array';
      if (items.type === undefined && Array.isArray(items.enum)) {
        const type = typeOfValues(items.enum);
        if (type) items.type = type;
      }
      if (items.type === undefined && field?.items) items.type = field.items;
      schema.items = items;
    }
    return { schema, optional };
  }
}

/**
 * The validator a property without one needs, named after what it holds: its initial value,
 * then its `@Type(() => X)`, then its TypeScript type (design:type).
 */
function suggestedValidator(dto: Constructor, name: string, initial: unknown): string {
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

/** Property initialisers of `dto`, read once by constructing it without arguments. */
function readDefaults(dto: Constructor): Map<string, unknown> {
  const defaults = new Map<string, unknown>();
  try {
    const instance = new (dto as new () => Record<string, unknown>)();
    for (const key of Object.keys(instance)) defaults.set(key, instance[key]);
  } catch {
    // A DTO whose constructor needs arguments simply advertises no defaults.
  }
  return defaults;
}

/** The JSON Schema of one DTO class, with any problems found on the way. */
export function dtoToJsonSchema(dto: Constructor): { schema: JsonSchema; problems: SchemaProblem[] } {
  const writer = new DtoSchemaWriter();
  const schema = writer.write(dto);
  return { schema, problems: writer.problems };
}

// Keywords that describe the shape of a value (what the structural check enforces). Value
// constraints (bounds, lengths, patterns, formats, enums) are left to class-validator, whose
// messages the caller gets.
const STRUCTURAL_KEYS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', '$ref', '$defs']);

/**
 * The shape-only part of a DTO schema: types, nesting, required and unknown properties. Checked
 * with Ajv before class-transformer runs, it makes validation agree with the advertised schema
 * where class-validator alone is looser (an array where an object is declared, `null` for an
 * optional string, item types of primitive arrays).
 */
export function structuralSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    // A Date's string form is part of its shape: it is checked before `new Date()` sees it. Only
    // @IsDate writes `date-time` (see CONSTRAINTS), so the format always means a Date here.
    if (key === 'format' && value === 'date-time') out.format = value;
    if (!STRUCTURAL_KEYS.has(key)) continue;
    if (key === 'properties' || key === '$defs') {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, structuralSchema(v)]));
    } else if (key === 'items' && typeof value === 'object' && value !== null) {
      out[key] = structuralSchema(value as JsonSchema);
    } else {
      out[key] = value;
    }
  }
  return out;
}
