import { pascalCase, sentenceCase } from './names.js';
import { type OpenApiDocument, resolveRef } from './openapi-document.js';

/** A JSON Schema object of the document, as far as the DTO mapping reads it. */
export interface SchemaObject {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly description?: string;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly nullable?: boolean;
  readonly properties?: Readonly<Record<string, SchemaObject>>;
  readonly required?: readonly string[];
  readonly items?: SchemaObject;
  readonly allOf?: readonly SchemaObject[];
  readonly oneOf?: readonly SchemaObject[];
  readonly anyOf?: readonly SchemaObject[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly additionalProperties?: unknown;
  readonly default?: unknown;
  readonly example?: unknown;
}

/** One decorator line of a DTO property and the module its name comes from. */
export interface DecoratorLine {
  readonly name: string;
  readonly from: string;
  readonly code: string;
}

export interface DtoField {
  /** The property name (a TypeScript identifier or a quoted name). */
  readonly name: string;
  readonly description?: string;
  readonly optional: boolean;
  /** `@Field({ items })` for arrays of primitives, which TypeScript reflects only as `Array`. */
  readonly items?: 'string' | 'number' | 'integer' | 'boolean';
  readonly decorators: readonly DecoratorLine[];
  readonly tsType: string;
  /** The document's `default`, as the TypeScript literal the property starts with (advertised as the default). */
  readonly initializer?: string;
  /** A DTO class the property's reflected type names (it must be declared before this class). */
  readonly classType?: string;
}

export interface DtoClass {
  readonly name: string;
  readonly doc: string;
  readonly fields: readonly DtoField[];
}

const CV = 'class-validator';
const at = (name: string, ...args: string[]): DecoratorLine => ({ name, from: CV, code: `@${name}(${args.join(', ')})` });
const typeOf = (className: string): DecoratorLine => ({ name: 'Type', from: 'class-transformer', code: `@Type(() => ${className})` });
/** A TypeScript literal of a JSON value; strings single-quoted, as Biome writes them. */
export function literal(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  if (value.includes("'") && !value.includes('"')) return JSON.stringify(value);
  return `'${JSON.stringify(value).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
}
/** A JSON Schema pattern as a regular expression literal (Biome's preference over `new RegExp`). */
function regexLiteral(pattern: string): string {
  return pattern === '' ? '/(?:)/' : `/${pattern.replace(/(?<!\\)\//g, '\\/').replaceAll('\n', '\\n')}/`;
}
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The first text that is not blank. */
const firstText = (...texts: Array<string | undefined>): string | undefined =>
  texts.find((text) => text !== undefined && text.trim() !== '');

/**
 * What the model reads when the document describes a property nowhere: its name as words, whose
 * it is, and the format and example the document gives.
 */
function describedFromSchema(name: string, owner: string, schema: SchemaObject): string {
  const example = schema.example === undefined ? '' : `, for example ${JSON.stringify(schema.example)}`;
  return `${sentenceCase(name)} of the ${owner}${schema.format ? ` (${schema.format})` : ''}${example}.`;
}

/** A `default` of the document as the TypeScript literal a property of type `tsType` starts with; undefined when it does not fit. */
function initializerOf(value: unknown, tsType: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (tsType.endsWith('[]')) {
    const item = tsType.slice(0, -2).replace(/^\((.*)\)$/, '$1');
    const items = Array.isArray(value) ? value.map((entry) => initializerOf(entry, item)) : [];
    return Array.isArray(value) && items.every((entry) => entry !== undefined) ? `[${items.join(', ')}]` : undefined;
  }
  const fits =
    (tsType === 'string' && typeof value === 'string') ||
    (tsType === 'number' && typeof value === 'number') ||
    (tsType === 'boolean' && typeof value === 'boolean') ||
    tsType.split(' | ').includes(literal(value));
  return fits ? literal(value) : undefined;
}

function typeNames(schema: SchemaObject): string[] {
  return schema.type === undefined ? [] : typeof schema.type === 'string' ? [schema.type] : [...schema.type];
}

function isObjectSchema(schema: SchemaObject): boolean {
  return typeNames(schema).includes('object') || schema.properties !== undefined || schema.allOf !== undefined;
}

/**
 * Turns the document's JSON Schemas into class-validator DTO classes: each component schema that
 * is an object becomes one class named after it, each inline object a class named after its
 * owner and property. What class-validator cannot say is reported in `warnings` (the property then
 * takes any value) rather than dropped silently.
 */
export class DtoBuilder {
  private readonly classes = new Map<string, DtoClass>();
  private readonly building = new Set<string>();
  private readonly componentNames = new Map<string, string>();
  readonly warnings: string[] = [];

  constructor(private readonly document: OpenApiDocument) {}

  /** The classes built so far, each after the classes its properties' reflected types name. */
  ordered(): DtoClass[] {
    const done = new Set<string>();
    const out: DtoClass[] = [];
    const visit = (dto: DtoClass, trail: Set<string>) => {
      if (done.has(dto.name) || trail.has(dto.name)) return;
      trail.add(dto.name);
      for (const field of dto.fields) {
        const dependency = field.classType ? this.classes.get(field.classType) : undefined;
        if (dependency) visit(dependency, trail);
      }
      done.add(dto.name);
      out.push(dto);
    };
    for (const dto of this.classes.values()) visit(dto, new Set());
    return out;
  }

  /** Adds a class with these fields (an operation's input). */
  addClass(dto: DtoClass): void {
    if (this.classes.has(dto.name)) throw new Error(`two DTO classes would be called ${dto.name}`);
    this.classes.set(dto.name, dto);
  }

  /** The fields of an object schema, for a class named `owner`. */
  fieldsOf(schema: SchemaObject, owner: string): DtoField[] {
    const merged = this.mergeAllOf(schema);
    const required = new Set(merged.required ?? []);
    return Object.entries(merged.properties ?? {}).map(([name, property]) =>
      this.field(name, property, !required.has(name), owner, `${owner}.${name}`),
    );
  }

  /**
   * One property: its decorators, type, description (the document's, else `fallback`, else one
   * made from its name, format and example) and the default the document gives it. `where` names
   * it in warnings.
   */
  field(name: string, raw: SchemaObject, optional: boolean, owner: string, where: string, fallback?: string): DtoField {
    const schema = resolveRef(this.document, raw);
    const description = firstText(raw.description, schema.description, fallback) ?? describedFromSchema(name, owner, schema);
    const nullable = schema.nullable === true || typeNames(schema).includes('null');
    // Armature's schemas have no null for a DTO property: a nullable one is optional instead.
    if (nullable) this.warnings.push(`${where}: null is not accepted (the argument is optional instead: leave it out)`);
    const shape = this.shape(raw, owner, name, where, false);
    const initializer = shape.classType ? undefined : initializerOf(raw.default ?? schema.default, shape.tsType);
    const leftOut = optional || nullable || initializer !== undefined;
    const lines = [...(leftOut ? [at('IsOptional')] : []), ...shape.decorators];
    return {
      name: IDENTIFIER.test(name) ? name : literal(name),
      description,
      optional: leftOut,
      initializer,
      items: shape.tsType.endsWith('[]') ? shape.items : undefined,
      decorators: lines,
      tsType: shape.tsType,
      classType: shape.classType,
    };
  }

  private shape(
    raw: SchemaObject,
    owner: string,
    property: string,
    where: string,
    each: boolean,
  ): { decorators: DecoratorLine[]; tsType: string; classType?: string; items?: DtoField['items'] } {
    const eachArg = each ? ['{ each: true }'] : [];
    const className = this.classFor(raw, `${owner}${pascalCase(property)}`);
    if (className) {
      return {
        decorators: [at('ValidateNested', ...eachArg), typeOf(className)],
        tsType: className,
        classType: each ? undefined : className,
      };
    }
    const schema = resolveRef(this.document, raw);
    if (schema.oneOf || schema.anyOf) {
      this.warnings.push(`${where}: oneOf/anyOf is not validated (any value is accepted and sent as given)`);
      return { decorators: [at('Allow')], tsType: 'unknown' };
    }
    if (schema.const !== undefined) return { decorators: [at('Equals', literal(schema.const))], tsType: literal(schema.const) };
    if (schema.enum) {
      const values = schema.enum.filter((value) => value !== null);
      return {
        decorators: [at('IsIn', `[${values.map(literal).join(', ')}]`, ...eachArg)],
        tsType: values.map(literal).join(' | ') || 'never',
      };
    }
    const type = typeNames(schema).find((name) => name !== 'null');
    switch (type) {
      case 'string': {
        const lines = [at('IsString', ...eachArg)];
        if (schema.minLength !== undefined && schema.maxLength !== undefined)
          lines.push(at('Length', String(schema.minLength), String(schema.maxLength), ...eachArg));
        else if (schema.minLength !== undefined) lines.push(at('MinLength', String(schema.minLength), ...eachArg));
        else if (schema.maxLength !== undefined) lines.push(at('MaxLength', String(schema.maxLength), ...eachArg));
        if (schema.pattern !== undefined) lines.push(at('Matches', regexLiteral(schema.pattern), ...eachArg));
        if (schema.format === 'uuid') lines.push(at('IsUUID', ...(each ? ['undefined', '{ each: true }'] : [])));
        else if (schema.format === 'email') lines.push(at('IsEmail', ...(each ? ['undefined', '{ each: true }'] : [])));
        else if (schema.format === 'date-time' || schema.format === 'date')
          lines.push(at('IsISO8601', ...(each ? ['undefined', '{ each: true }'] : [])));
        return { decorators: lines, tsType: 'string', items: 'string' };
      }
      case 'integer':
      case 'number': {
        const lines = [type === 'integer' ? at('IsInt', ...eachArg) : at('IsNumber', ...(each ? ['{}', '{ each: true }'] : []))];
        if (schema.minimum !== undefined) lines.push(at('Min', String(schema.minimum), ...eachArg));
        if (schema.maximum !== undefined) lines.push(at('Max', String(schema.maximum), ...eachArg));
        return { decorators: lines, tsType: 'number', items: type };
      }
      case 'boolean':
        return { decorators: [at('IsBoolean', ...eachArg)], tsType: 'boolean', items: 'boolean' };
      case 'array': {
        if (each) {
          this.warnings.push(`${where}: an array of arrays is not validated item by item`);
          return { decorators: [at('IsArray', ...eachArg)], tsType: 'unknown[]' };
        }
        const lines = [at('IsArray')];
        if (schema.minItems !== undefined) lines.push(at('ArrayMinSize', String(schema.minItems)));
        if (schema.maxItems !== undefined) lines.push(at('ArrayMaxSize', String(schema.maxItems)));
        if (!schema.items) return { decorators: lines, tsType: 'unknown[]' };
        const item = this.shape(schema.items, owner, `${property}Item`, `${where}[]`, true);
        const needsParens = item.tsType.includes('|');
        return {
          decorators: [...lines, ...item.decorators],
          tsType: `${needsParens ? `(${item.tsType})` : item.tsType}[]`,
          items: item.items,
        };
      }
      case 'object':
        return { decorators: [at('IsObject', ...eachArg)], tsType: 'Record<string, unknown>' };
      default:
        this.warnings.push(`${where}: the schema names no type, so any value is accepted`);
        return { decorators: [at('Allow')], tsType: 'unknown' };
    }
  }

  /**
   * The DTO class for an object schema with properties (built on first use), or undefined for
   * anything else. A `$ref` to a component schema names the class after the component.
   */
  classFor(raw: SchemaObject, inlineName: string): string | undefined {
    const schema = resolveRef(this.document, raw);
    if (!isObjectSchema(schema)) return undefined;
    const merged = this.mergeAllOf(schema);
    if (!merged.properties || Object.keys(merged.properties).length === 0) return undefined;
    const name = raw.$ref ? this.componentName(raw.$ref) : inlineName;
    if (this.classes.has(name) || this.building.has(name)) return name;
    this.building.add(name);
    const doc = schema.description ?? `The ${raw.$ref ? name : inlineName} object of the API.`;
    const fields = this.fieldsOf(merged, name);
    this.building.delete(name);
    this.addClass({ name, doc, fields });
    return name;
  }

  private componentName(ref: string): string {
    let name = this.componentNames.get(ref);
    if (!name) {
      name = pascalCase(ref.split('/').pop() ?? 'Schema');
      this.componentNames.set(ref, name);
    }
    return name;
  }

  /** allOf's members merged into one object schema (properties and required lists joined). */
  private mergeAllOf(schema: SchemaObject): SchemaObject {
    if (!schema.allOf) return schema;
    const parts = [schema, ...schema.allOf.map((part) => this.mergeAllOf(resolveRef(this.document, part)))];
    return {
      type: 'object',
      description: schema.description,
      properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
      required: parts.flatMap((part) => part.required ?? []),
    };
  }
}
