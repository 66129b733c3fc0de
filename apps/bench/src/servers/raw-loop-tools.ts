// The limit's tools, written once for both hand-written loops (stdio and node:http): the same tools
// as every other server, hand-written checks of the same constraints (unknown arguments refused, as
// the `additionalProperties: false` of the schemas says), and tools/list pages of 100 prebuilt as
// JSON, each tool listed exactly as Armature lists it (the scenarios compare the two listings).
import {
  ADD_DESCRIPTION,
  addText,
  extraToolDescription,
  extraToolName,
  KINDS,
  type Kind,
  SEARCH_DESCRIPTION,
  type SearchArgs,
  searchText,
} from './bench-tools.js';

export type Json = Record<string, unknown>;
type Handler = (args: Json) => string | { error: string };

export const PAGE_SIZE = 100;

// The schemas Armature derives from AddInput and SearchInput, key for key.
const addSchema = {
  type: 'object',
  properties: {
    a: { type: 'number', description: 'The first addend' },
    b: { type: 'number', description: 'The second addend' },
  },
  required: ['a', 'b'],
  additionalProperties: false,
};
const searchSchema = {
  type: 'object',
  properties: {
    query: { maxLength: 200, minLength: 2, type: 'string' },
    filters: { $ref: '#/$defs/SearchFilters' },
    limit: { maximum: 50, minimum: 1, type: 'integer' },
  },
  required: ['query', 'filters'],
  additionalProperties: false,
  $defs: {
    SearchFilters: {
      type: 'object',
      properties: {
        tags: { maxItems: 10, type: 'array', items: { type: 'string' } },
        kinds: { minItems: 1, type: 'array', items: { enum: KINDS, type: 'string' } },
        minStars: { minimum: 0, type: 'integer' },
      },
      required: ['tags', 'kinds'],
      additionalProperties: false,
    },
  },
};

/** The first key of `value` that is not in `allowed`, if any. */
function unknownKey(value: Json, allowed: readonly string[]): string | undefined {
  for (const key in value) if (!allowed.includes(key)) return key;
  return undefined;
}

const add: Handler = (args) => {
  const extra = unknownKey(args, ['a', 'b']);
  if (extra !== undefined) return { error: `${extra}: unknown property` };
  const { a, b } = args;
  return typeof a === 'number' && typeof b === 'number' ? addText(a, b) : { error: 'a and b must be numbers' };
};

const isInt = (value: unknown, min: number, max = Number.MAX_SAFE_INTEGER) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

const search: Handler = (args) => {
  const extra = unknownKey(args, ['query', 'filters', 'limit']);
  if (extra !== undefined) return { error: `${extra}: unknown property` };
  const { query, filters, limit } = args;
  if (typeof query !== 'string' || query.length < 2 || query.length > 200) return { error: 'query: 2 to 200 characters' };
  if (limit !== undefined && !isInt(limit, 1, 50)) return { error: 'limit: an integer from 1 to 50' };
  if (typeof filters !== 'object' || filters === null || Array.isArray(filters)) return { error: 'filters: an object' };
  const inner = unknownKey(filters as Json, ['tags', 'kinds', 'minStars']);
  if (inner !== undefined) return { error: `filters.${inner}: unknown property` };
  const { tags, kinds, minStars } = filters as Json;
  if (!Array.isArray(tags) || tags.length > 10 || !tags.every((t) => typeof t === 'string'))
    return { error: 'filters.tags: up to 10 strings' };
  if (!Array.isArray(kinds) || kinds.length < 1 || !kinds.every((k) => KINDS.includes(k as Kind))) {
    return { error: `filters.kinds: one or more of ${KINDS.join(', ')}` };
  }
  if (minStars !== undefined && !isInt(minStars, 0)) return { error: 'filters.minStars: an integer >= 0' };
  return searchText(args as unknown as SearchArgs);
};

/**
 * A tool call's result as JSON without its closing brace (`{"content":[...]` and `"isError":true`
 * when refused), so that each loop appends what its revision adds; undefined for a tool that does
 * not exist.
 */
export type CallOutcome = string | undefined;

const resultOpen = (text: string, isError: boolean) =>
  `{"content":[{"type":"text","text":${JSON.stringify(text)}}]${isError ? ',"isError":true' : ''}`;

export class RawTools {
  private readonly handlers = new Map<string, Handler>();
  /** tools/list pages as JSON, `nextCursor` included. */
  readonly pages: string[] = [];

  /** `add`, `search` and `extra` copies of `add`. */
  constructor(extra: number) {
    const tools = [
      { name: 'add', description: ADD_DESCRIPTION, inputSchema: addSchema, handler: add },
      { name: 'search', description: SEARCH_DESCRIPTION, inputSchema: searchSchema, handler: search },
    ];
    for (let i = 1; i <= extra; i++) {
      tools.push({ name: extraToolName(i), description: extraToolDescription(i), inputSchema: addSchema, handler: add });
    }
    for (const { name, handler } of tools) this.handlers.set(name, handler);
    for (let from = 0; from < tools.length; from += PAGE_SIZE) {
      const page = tools.slice(from, from + PAGE_SIZE).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
      const next = from + PAGE_SIZE < tools.length ? { nextCursor: String(from + PAGE_SIZE) } : {};
      this.pages.push(JSON.stringify({ tools: page, ...next }));
    }
  }

  /** The page a cursor names (undefined: no such page). */
  page(cursor: unknown): string | undefined {
    const index = cursor === undefined ? 0 : Number(cursor) / PAGE_SIZE;
    return Number.isInteger(index) ? this.pages[index] : undefined;
  }

  call(name: unknown, args: unknown): CallOutcome {
    const handler = typeof name === 'string' ? this.handlers.get(name) : undefined;
    if (!handler) return undefined;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args)))
      return resultOpen('arguments: an object', true);
    const outcome = handler((args ?? {}) as Json);
    return typeof outcome === 'string' ? resultOpen(outcome, false) : resultOpen(outcome.error, true);
  }
}
