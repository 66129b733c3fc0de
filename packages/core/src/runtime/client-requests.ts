import type { ElicitRequestFormParams, InputRequest } from '@modelcontextprotocol/server';
import type { Constructor, JsonSchema } from '../metadata/metadata-args.js';
import { DtoSchemaWriter } from '../schema/dto-to-json-schema.js';

/** The client's answer to an elicitation: accepted with content, declined, or cancelled (dismissed). */
export type ElicitOutcome<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' };

/** The restricted schema of a form elicitation (flat object of primitive properties). */
export type ElicitationSchema = ElicitRequestFormParams['requestedSchema'];

/**
 * Thrown by a `Context` client request on 2026-07-28 when the answer is not known yet: the call
 * ends with an `input_required` result, and the client retries with the answer (multi-round-trip).
 * It is an implementation detail of `ctx.elicit/sample/roots`: do not catch it.
 */
export class InputRequiredSignal extends Error {
  constructor(
    readonly key: string,
    readonly request: InputRequest,
  ) {
    super('input required (multi-round-trip request, 2026-07-28): the call will be retried with the answer');
    this.name = 'InputRequiredSignal';
  }
}

// Keys a property of the restricted elicitation schema may carry (spec 2025-11-25, elicitation).
const PRIMITIVE_KEYS = new Set([
  'type',
  'title',
  'description',
  'minLength',
  'maxLength',
  'format',
  'minimum',
  'maximum',
  'enum',
  'enumNames',
  'oneOf',
  'anyOf',
  'default',
  'items',
  'minItems',
  'maxItems',
]);
const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

const cache = new WeakMap<Constructor, ElicitationSchema>();

/**
 * The restricted elicitation schema of a DTO (computed once per class): its properties must be
 * strings, numbers, integers, booleans, enums or multi-select enum arrays; nested DTOs cannot be
 * asked for in a form.
 */
export function elicitationSchemaOf(dto: Constructor): ElicitationSchema {
  const known = cache.get(dto);
  if (known) return known;
  const writer = new DtoSchemaWriter();
  const schema = writer.write(dto);
  const problems = writer.problems.map((p) => `${p.message} (fix: ${p.fix})`);
  const properties: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries((schema.properties as Record<string, JsonSchema>) ?? {})) {
    const type = property.type;
    const isEnumArray = type === 'array' && typeof property.items === 'object' && Array.isArray((property.items as JsonSchema).enum);
    if (!['string', 'number', 'integer', 'boolean'].includes(String(type)) && !isEnumArray) {
      problems.push(
        `${dto.name}.${name} is ${property.$ref ? 'a nested DTO' : `of type ${String(type)}`}; a form can only ask for strings, numbers, booleans and enums`,
      );
      continue;
    }
    const kept: JsonSchema = {};
    for (const [key, value] of Object.entries(property)) {
      if (!PRIMITIVE_KEYS.has(key)) continue;
      if (key === 'format' && !FORMATS.has(String(value))) continue;
      kept[key] = value;
    }
    properties[name] = kept;
  }
  if (problems.length > 0) {
    throw new TypeError(`${dto.name} cannot be used for elicitation:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  const result = { type: 'object', properties, ...(schema.required ? { required: schema.required } : {}) } as ElicitationSchema;
  cache.set(dto, result);
  return result;
}
