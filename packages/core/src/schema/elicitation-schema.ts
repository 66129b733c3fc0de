import type { ElicitationSchema } from '../context/context.js';
import type { BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import type { Constructor, JsonSchema } from '../metadata/metadata-args.js';

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

/**
 * The restricted elicitation schema of a DTO from its advertised schema: properties must be
 * strings, numbers, integers, booleans, enums or multi-select enum arrays; nested DTOs cannot be
 * asked for in a form. Every property that cannot is reported.
 */
export function toElicitationSchema(
  dto: Constructor,
  schema: JsonSchema,
): { schema: ElicitationSchema; problems: readonly BuildProblem[] } {
  const problems: BuildProblem[] = [];
  const properties: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries((schema.properties as Record<string, JsonSchema>) ?? {})) {
    const type = property.type;
    const isEnumArray = type === 'array' && typeof property.items === 'object' && Array.isArray((property.items as JsonSchema).enum);
    if (!['string', 'number', 'integer', 'boolean'].includes(String(type)) && !isEnumArray) {
      const what = property.$ref ? 'a nested DTO' : `of type ${String(type)}`;
      problems.push(problem(MESSAGES.elicitationDtoUnsupported, `${dto.name}.${name}`, dto.name, name, what));
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
  const result = { type: 'object', properties, ...(schema.required ? { required: schema.required } : {}) } as ElicitationSchema;
  return { schema: result, problems };
}
