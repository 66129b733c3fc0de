import type { JsonSchema } from '../metadata/metadata-args.js';

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
    // @IsDate writes `date-time` (see `CONSTRAINTS` in constraint-keywords.ts), so the format always means a Date here.
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
