import { ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import { MESSAGES, type MessageDefinition } from '../messages/message-catalog.js';
import type { Constructor, JsonSchema } from '../metadata/metadata-args.js';
import { getMetadataStorage } from '../metadata/metadata-storage.js';
import { findDeclaredType } from '../seams/class-transformer.js';
import { BUILTIN_TYPES, type PropertySchema, propertyKeywords, typeOfValues } from './constraint-keywords.js';
import { DATE_PATTERN } from './date-patterns.js';
import { suggestedValidator, validationMetadataOf } from './dto-reading.js';
import { HEADER_PARAM_KEYWORD } from './header-params.js';
import { advertisedDefault, nestedDefault, readDefaults } from './property-defaults.js';

/** A problem found while describing a DTO; the builder prefixes it with `Class.method`. */
export interface SchemaProblem {
  readonly code: string;
  readonly message: string;
  readonly fix: string;
}

function schemaProblem<A extends readonly unknown[]>(definition: MessageDefinition<A>, ...args: NoInfer<A>): SchemaProblem {
  return { code: definition.code, ...definition.render(...args) };
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
      const { schema, optional, nested } = this.propertySchema(dto, name, metas);
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
      if (fallback !== undefined) {
        const advertised = nested ? this.nestedDefault(dto, name, fallback, schema) : advertisedDefault(fallback);
        if (advertised !== undefined) schema.default = advertised;
      }
      properties[name] = schema;
      if (!optional && schema.default === undefined) required.push(name);
    }

    const result: JsonSchema = { type: 'object', properties };
    if (required.length > 0) result.required = required;
    result.additionalProperties = false;
    return result;
  }

  /**
   * The default of a nested DTO property as a client would send it, or undefined after reporting
   * a default that is not an object (a list of objects for an array). The call path fills an
   * omitted property with it before conversion, so the method gets instances of the nested class
   * either way.
   */
  private nestedDefault(dto: Constructor, name: string, value: unknown, schema: PropertySchema): unknown {
    const each = schema.type === 'array';
    const json = nestedDefault(value, each);
    if (json !== undefined) return json;
    const target = findDeclaredType(dto, name) as Constructor;
    this.problems.push(schemaProblem(MESSAGES.nestedDefaultNotObjects, dto.name, name, target.name, each));
    return undefined;
  }

  private propertySchema(
    dto: Constructor,
    name: string,
    metas: ValidationMetadata[],
  ): { schema: PropertySchema; optional: boolean; nested: boolean } {
    const { schema, items, optional, nested, each: eachSeen } = propertyKeywords(metas);

    const designType = Reflect.getMetadata?.('design:type', dto.prototype, name);
    const declared = findDeclaredType(dto, name);
    const field = getMetadataStorage().fieldOf(dto, name)?.options;

    if (nested) {
      // Without @Type, class-transformer (implicit conversion off) leaves the value a plain object,
      // which class-validator cannot check: require it rather than guess from design:type.
      const target = declared as Constructor | undefined;
      if (typeof target !== 'function') {
        this.problems.push(schemaProblem(MESSAGES.nestedWithoutType, dto.name, name));
      } else if (designType === Array || schema.type === 'array' || eachSeen) {
        schema.type = 'array';
        schema.items = this.refFor(target);
      } else {
        Object.assign(schema, this.refFor(target));
      }
      return { schema, optional, nested: typeof target === 'function' };
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
    return { schema, optional, nested: false };
  }
}

/** The JSON Schema of one DTO class, with any problems found on the way. */
export function dtoToJsonSchema(dto: Constructor): { schema: JsonSchema; problems: SchemaProblem[] } {
  const writer = new DtoSchemaWriter();
  const schema = writer.write(dto);
  return { schema, problems: writer.problems };
}
