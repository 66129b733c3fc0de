import { sentenceCase } from '../util/names.js';

/** The field types `--fields` accepts (`dto` is a PascalCase class name, with `[]` for a list). */
export type FieldType = 'string' | 'string[]' | 'int' | 'number' | 'boolean' | 'date' | 'enum' | 'dto';

/** One DTO property as asked for on the command line, e.g. `days?:int:1..14`. */
export interface FieldSpec {
  readonly name: string;
  readonly optional: boolean;
  readonly type: FieldType;
  /** Length for strings, value for numbers. */
  readonly min?: number;
  readonly max?: number;
  /** Allowed values of an `enum` field. */
  readonly values?: readonly string[];
  /** A `dto` field: the nested class, whether it is a list, and (once resolved) its own fields. */
  readonly dto?: { readonly className: string; readonly list: boolean; readonly fields?: readonly FieldSpec[] };
  readonly description: string;
}

/** A class-validator decorator as written above a property. */
export interface Constraint {
  /** The imported decorator name, e.g. `Length`. */
  readonly decorator: string;
  /** The decorator call as written, e.g. `@Length(1, 64)`. */
  readonly code: string;
  /** The module it comes from. Default class-validator. */
  readonly from?: string;
}

export class FieldSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldSpecError';
  }
}

const FIELD_SYNTAX =
  'name[?]:type[:range], type one of string | string[] | int | number | boolean | date | a|b|c (enum) | a DTO class (Address, Address[]); ' +
  'e.g. "city:string:1..64, days?:int:1..14, units?:metric|imperial, tags?:string[]:..5, due?:date, address?:Address"';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The field types written by name (a DTO field is written as its class name). */
export const FIELD_TYPES: readonly FieldType[] = ['string', 'string[]', 'int', 'number', 'boolean', 'date', 'enum'];
const TYPES = new Set<FieldType>(FIELD_TYPES);
const DTO_TYPE = /^([A-Z][A-Za-z0-9_]*)(\[\])?$/;

function parseBound(text: string, field: string, integer: boolean): number | undefined {
  if (text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new FieldSpecError(
      `field "${field}": "${text}" is not ${integer ? 'a whole number' : 'a number'}. Write the range as min..max, e.g. 1..64`,
    );
  }
  return value;
}

/** Parses one `name[?]:type[:range|a|b]` item. */
export function parseField(item: string): FieldSpec {
  const parts = item.trim().split(':');
  const [rawName = '', rawType = '', ...rest] = parts;
  const optional = rawName.endsWith('?');
  const name = optional ? rawName.slice(0, -1) : rawName;
  if (!IDENTIFIER.test(name)) throw new FieldSpecError(`"${item.trim()}": "${name}" is not a valid property name. Syntax: ${FIELD_SYNTAX}`);
  const description = sentenceCase(name);
  if (rawType.includes('|')) return parseField(`${rawName}:enum:${[rawType, ...rest].join(':')}`);
  const nested = DTO_TYPE.exec(rawType);
  if (nested) {
    if (rest.length > 0) throw new FieldSpecError(`field "${name}": a DTO field takes no range`);
    return { name, optional, type: 'dto', dto: { className: nested[1] as string, list: nested[2] !== undefined }, description };
  }
  const type = rawType as FieldType;
  if (!TYPES.has(type)) throw new FieldSpecError(`"${item.trim()}": unknown type "${rawType}". Syntax: ${FIELD_SYNTAX}`);
  const detail = rest.join(':');

  if (type === 'enum') {
    const values = detail
      .split('|')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    if (values.length === 0) throw new FieldSpecError(`field "${name}": an enum needs its values, e.g. ${name}:enum:metric|imperial`);
    if (values.some((v) => !/^[A-Za-z0-9_.-]+$/.test(v))) {
      throw new FieldSpecError(`field "${name}": enum values may use letters, digits, "_", "." and "-" only`);
    }
    return { name, optional, type, values, description };
  }
  if (type === 'boolean' || type === 'date') {
    if (detail !== '') throw new FieldSpecError(`field "${name}": a ${type} takes no range`);
    return { name, optional, type, description };
  }
  if (detail === '') return { name, optional, type, description };
  const range = /^(-?[\d.]*)\.\.(-?[\d.]*)$/.exec(detail);
  if (!range) throw new FieldSpecError(`field "${name}": "${detail}" is not a range. Write min..max, min.. or ..max, e.g. 1..64`);
  const integer = type !== 'number';
  const min = parseBound(range[1] as string, name, integer);
  const max = parseBound(range[2] as string, name, integer);
  if ((type === 'string' || type === 'string[]') && ((min !== undefined && min < 0) || (max !== undefined && max < 0))) {
    throw new FieldSpecError(`field "${name}": a length cannot be negative`);
  }
  if (min !== undefined && max !== undefined && min > max)
    throw new FieldSpecError(`field "${name}": the range ${detail} is empty (min > max)`);
  return { name, optional, type, min: type === 'string' && min === 0 ? undefined : min, max, description };
}

/** Parses a comma-separated `--fields` list. Property names must be unique. */
export function parseFields(text: string): FieldSpec[] {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.length === 0) throw new FieldSpecError(`no fields given. Syntax: ${FIELD_SYNTAX}`);
  const fields = items.map(parseField);
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field.name)) throw new FieldSpecError(`the field "${field.name}" is listed twice`);
    seen.add(field.name);
  }
  return fields;
}

/** Writes fields back in `--fields` syntax (for messages and the README). */
export function formatFields(fields: readonly FieldSpec[]): string {
  return fields
    .map((f) => {
      if (f.type === 'enum') return `${f.name}${f.optional ? '?' : ''}:${f.values?.join('|')}`;
      if (f.type === 'dto') return `${f.name}${f.optional ? '?' : ''}:${f.dto?.className}${f.dto?.list ? '[]' : ''}`;
      const head = `${f.name}${f.optional ? '?' : ''}:${f.type}`;
      if (f.min === undefined && f.max === undefined) return head;
      return `${head}:${f.min ?? ''}..${f.max ?? ''}`;
    })
    .join(', ');
}

/** The class-validator decorators of a field, top to bottom as written (`@IsOptional()` excluded). */
export function constraintsOf(field: FieldSpec): Constraint[] {
  const { min, max } = field;
  const at = (decorator: string, ...args: unknown[]): Constraint => ({ decorator, code: `@${decorator}(${args.join(', ')})` });
  switch (field.type) {
    case 'string': {
      const length =
        min !== undefined && max !== undefined
          ? [at('Length', min, max)]
          : min !== undefined
            ? [at('MinLength', min)]
            : max !== undefined
              ? [at('MaxLength', max)]
              : [];
      return [at('IsString'), ...length];
    }
    case 'int':
    case 'number':
      return [
        at(field.type === 'int' ? 'IsInt' : 'IsNumber'),
        ...(min !== undefined ? [at('Min', min)] : []),
        ...(max !== undefined ? [at('Max', max)] : []),
      ];
    case 'boolean':
      return [at('IsBoolean')];
    case 'enum':
      return [at('IsIn', `[${(field.values ?? []).map((v) => `'${v}'`).join(', ')}]`)];
    case 'string[]':
      return [
        at('IsArray'),
        at('IsString', '{ each: true }'),
        ...(min !== undefined ? [at('ArrayMinSize', min)] : []),
        ...(max !== undefined ? [at('ArrayMaxSize', max)] : []),
      ];
    case 'date':
      return [at('IsDate'), { decorator: 'Type', code: '@Type(() => Date)', from: 'class-transformer' }];
    case 'dto': {
      const { className, list } = field.dto as NonNullable<FieldSpec['dto']>;
      return [
        ...(list ? [at('IsArray'), at('ValidateNested', '{ each: true }')] : [at('ValidateNested')]),
        { decorator: 'Type', code: `@Type(() => ${className})`, from: 'class-transformer' },
      ];
    }
  }
}

/** The TypeScript type of a field. */
export function tsTypeOf(field: FieldSpec): string {
  switch (field.type) {
    case 'string':
      return 'string';
    case 'int':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return (field.values ?? []).map((v) => `'${v}'`).join(' | ');
    case 'string[]':
      return 'string[]';
    case 'date':
      return 'Date';
    case 'dto':
      return `${field.dto?.className}${field.dto?.list ? '[]' : ''}`;
  }
}

/** A valid value for the field, near the middle of what it allows and readable in a test. */
export function sampleValue(field: FieldSpec): unknown {
  switch (field.type) {
    case 'string': {
      let text = 'example';
      if (field.min !== undefined && text.length < field.min) text = text.padEnd(field.min, 'x');
      if (field.max !== undefined && text.length > field.max) text = text.slice(0, field.max);
      return text;
    }
    case 'int':
    case 'number': {
      let value = 1;
      if (field.min !== undefined && value < field.min) value = field.min;
      if (field.max !== undefined && value > field.max) value = field.max;
      return value;
    }
    case 'boolean':
      return true;
    case 'enum':
      return field.values?.[0];
    case 'string[]':
      return Array.from({ length: Math.max(1, Math.min(field.min ?? 1, field.max ?? 1)) }, (_, i) => `example-${i + 1}`);
    case 'date':
      // On the wire a Date is an RFC 3339 string (@Type(() => Date) converts it), written as
      // Date#toJSON writes it back, so an echo of the input reads the same.
      return '2026-01-01T00:00:00.000Z';
    case 'dto': {
      const nested = validArguments(field.dto?.fields ?? []);
      return field.dto?.list ? [nested] : nested;
    }
  }
}

/** A case for a generated test: a name, the arguments, and for rejections the expected lines. */
export interface ArgumentCase {
  readonly what: string;
  readonly args: Record<string, unknown>;
  readonly lines: readonly string[];
}

/** Arguments with every field at its sample value. */
export function validArguments(fields: readonly FieldSpec[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field.name, sampleValue(field)]));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Valid boundary values: each length or value limit exactly. */
export function boundaryAccepts(fields: readonly FieldSpec[]): ArgumentCase[] {
  const base = validArguments(fields);
  const cases: ArgumentCase[] = [];
  for (const field of fields) {
    const at = (value: unknown, what: string) => cases.push({ what, args: { ...base, [field.name]: value }, lines: [] });
    if (field.type === 'string') {
      if (field.min !== undefined) at('x'.repeat(field.min), `${field.name} at its minimum length (${field.min})`);
      if (field.max !== undefined && field.max !== field.min)
        at('x'.repeat(field.max), `${field.name} at its maximum length (${field.max})`);
    } else if (field.type === 'int' || field.type === 'number') {
      if (field.min !== undefined) at(field.min, `${field.name} at its minimum (${field.min})`);
      if (field.max !== undefined && field.max !== field.min) at(field.max, `${field.name} at its maximum (${field.max})`);
    }
  }
  return cases;
}

/**
 * Invalid arguments derived from the constraints, each with the exact lines the tool answers:
 * one step past each length or value limit, a value outside an enum, and an unknown field. These
 * messages are class-validator's (and Armature's for the unknown field), which a version of core
 * does not change; a missing field is `missingCase`, checked by field only.
 */
export function invalidCases(fields: readonly FieldSpec[], options: { stringsOnly?: boolean } = {}): ArgumentCase[] {
  const base = validArguments(fields);
  const cases: ArgumentCase[] = [];
  for (const field of fields) {
    const with_ = (value: unknown, what: string, message: string) =>
      cases.push({ what, args: { ...base, [field.name]: value }, lines: [`${field.name}: ${message}`] });
    if (field.type === 'string') {
      if (field.min !== undefined) {
        with_(
          'x'.repeat(field.min - 1),
          `${field.name} shorter than ${plural(field.min, 'character')}`,
          `must be longer than or equal to ${field.min} characters`,
        );
      }
      if (field.max !== undefined) {
        with_(
          'x'.repeat(field.max + 1),
          `${field.name} longer than ${plural(field.max, 'character')}`,
          `must be shorter than or equal to ${field.max} characters`,
        );
      }
    } else if (field.type === 'int' || field.type === 'number') {
      const step = field.type === 'int' ? 1 : 0.5;
      if (field.min !== undefined) with_(field.min - step, `${field.name} below ${field.min}`, `must not be less than ${field.min}`);
      if (field.max !== undefined) with_(field.max + step, `${field.name} above ${field.max}`, `must not be greater than ${field.max}`);
    } else if (field.type === 'enum') {
      with_(
        'not-a-choice',
        `${field.name} not one of its values`,
        `must be one of the following values: ${(field.values ?? []).join(', ')}`,
      );
    }
  }
  const unknown = fields.some((field) => field.name === 'unexpected') ? 'unexpected_field' : 'unexpected';
  cases.push({
    what: 'an unknown field',
    // Prompt arguments are strings on the wire: anything else fails the protocol schema first.
    args: { ...base, [unknown]: options.stringsOnly ? 'x' : true },
    lines: [`${unknown}: unknown property; remove it`],
  });
  return cases;
}

/** The first required field left out: the answer must name it (every line starts with `field: `). */
export function missingCase(fields: readonly FieldSpec[]): { what: string; field: string; args: Record<string, unknown> } | undefined {
  const required = fields.find((field) => !field.optional);
  if (!required) return undefined;
  const { [required.name]: _left, ...args } = validArguments(fields);
  return { what: `${required.name} missing`, field: required.name, args };
}
