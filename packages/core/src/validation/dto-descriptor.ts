import { getMetadataStorage as getValidationStorage, ValidationTypes } from 'class-validator';
import { MESSAGES } from '../messages/message-catalog.js';
import type { Constructor, JsonSchema } from '../metadata/metadata-args.js';
import { DtoSchemaWriter, type SchemaProblem } from '../schema/dto-to-json-schema.js';
import { structuralSchema } from '../schema/structural-schema.js';
import { findDeclaredType } from '../seams/class-transformer.js';
import { type CompiledDto, compileDto } from './compile-dto.js';
import { CodeGenerationRefused, type JsonValidator } from './json-schema-validator.js';
import { compileNestedDefaults, type FillDefaults } from './nested-defaults.js';
import { compileShapeCheck } from './shape-check.js';

/**
 * Everything the runtime needs to know about one DTO class, worked out once: the schema it
 * advertises, the compiled shape check of that schema, whether class-validator must take its
 * asynchronous path, the order of its properties (for stable error lists), and what is wrong
 * with it. Nothing here reads metadata again per request.
 */
export interface DtoDescriptor {
  readonly dto: Constructor;
  /** The self-contained JSON Schema 2020-12 advertised for it. */
  readonly schema: JsonSchema;
  /** Types, nesting, required and unknown properties of `schema`, compiled. */
  readonly shape: JsonValidator;
  /** Fills omitted properties whose advertised default is a nested DTO; undefined when it has none. */
  readonly fill: FillDefaults | undefined;
  /** True when a custom constraint is `async: true` (or a promise validation is declared), here or nested. */
  readonly async: boolean;
  /**
   * plainToInstance + validateSync compiled into generated code (same instance, same issues), for a
   * payload that passed `shape`; undefined for an asynchronous DTO or one the compiler does not cover.
   */
  readonly compiled: CompiledDto | undefined;
  /** Declaration index of each top-level property. */
  readonly order: ReadonlyMap<string, number>;
  readonly problems: readonly SchemaProblem[];
}

const described = new WeakMap<Constructor, DtoDescriptor>();

/** The descriptor of `dto`, made on first use and kept for the life of the class. */
export function describeDto(dto: Constructor): DtoDescriptor {
  let descriptor = described.get(dto);
  if (!descriptor) {
    const writer = new DtoSchemaWriter();
    const schema = writer.write(dto);
    const async = needsAsyncValidation(dto, new Set());
    const shape = shapeCheckOf(dto, schema, writer.problems);
    const fill = compileNestedDefaults(schema);
    if (fill && writer.problems.length === 0) checkNestedDefaults(dto, schema, shape, fill, writer.problems);
    descriptor = Object.freeze({
      dto,
      schema,
      shape,
      fill,
      async,
      compiled: async || writer.problems.length > 0 ? undefined : compileDto(dto),
      order: new Map(Object.keys((schema.properties as object | undefined) ?? {}).map((name, index) => [name, index])),
      problems: Object.freeze([...writer.problems]),
    });
    described.set(dto, descriptor);
  }
  return descriptor;
}

/** The DTO's shape check; where only Ajv covers it and Ajv cannot compile, a problem (start-up refuses). */
function shapeCheckOf(dto: Constructor, schema: JsonSchema, problems: SchemaProblem[]): JsonValidator {
  try {
    return compileShapeCheck(structuralSchema(schema));
  } catch (error) {
    if (!(error instanceof CodeGenerationRefused)) throw error;
    const definition = MESSAGES.schemaNeedsCodeGeneration;
    problems.push({ code: definition.code, ...definition.render(`the shape of DTO ${dto.name}`) });
    return () => {
      throw error;
    };
  }
}

/**
 * Refuses a top-level nested default that does not fit its own schema (ARM212): every call leaving
 * the property out would be refused for the author's value, not the caller's. Checked on the
 * filled empty object, so a default's own nested defaults count.
 */
function checkNestedDefaults(dto: Constructor, schema: JsonSchema, shape: JsonValidator, fill: FillDefaults, problems: SchemaProblem[]) {
  const outcome = shape(fill({}));
  if (outcome instanceof Promise || outcome.ok) return;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, property] of Object.entries(properties)) {
    if (property.default === undefined || !(property.$ref || (property.items as JsonSchema | undefined)?.$ref)) continue;
    const issues = outcome.issues.filter((issue) => issue.path === name || issue.path.startsWith(`${name}.`));
    if (issues.length === 0) continue;
    const definition = MESSAGES.nestedDefaultInvalid;
    const text = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    problems.push({ code: definition.code, ...definition.render(dto.name, name, text) });
  }
}

function needsAsyncValidation(dto: Function, seen: Set<Function>): boolean {
  if (seen.has(dto)) return false;
  seen.add(dto);
  const storage = getValidationStorage();
  for (const meta of storage.getTargetValidationMetadatas(dto, '', true, false)) {
    if (meta.type === ValidationTypes.PROMISE_VALIDATION) return true;
    if (meta.type === ValidationTypes.CUSTOM_VALIDATION && meta.constraintCls) {
      if (storage.getTargetValidatorConstraints(meta.constraintCls).some((c) => c.async)) return true;
    } else if (meta.type === ValidationTypes.NESTED_VALIDATION) {
      const nested = findDeclaredType(dto, meta.propertyName);
      if (typeof nested === 'function' && needsAsyncValidation(nested, seen)) return true;
    }
  }
  return false;
}
