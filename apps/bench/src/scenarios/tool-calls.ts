// The arguments every side gets, and the check that all sides answer the same before timing.
import { isDeepStrictEqual } from 'node:util';

export const ADD_FIXED = { a: 2, b: 3 };
/** An argument the schema does not name: refused where the schema says `additionalProperties: false`. */
export const ADD_UNKNOWN = { a: 2, b: 3, c: 4 };
export const SEARCH_FIXED = { query: 'mcp server', filters: { tags: ['ts', 'fast'], kinds: ['doc', 'code'], minStars: 5 }, limit: 20 };
/** Fails `query`'s MinLength: every side must refuse it, so validation really runs on every side. */
export const SEARCH_INVALID = { query: 'x', filters: { tags: [], kinds: ['doc'] } };

const QUERIES = ['mcp', 'server', 'decorators', 'stdio transport'];
const TAGS = [[], ['ts'], ['ts', 'fast'], ['a', 'b', 'c', 'd']];

/** Varied arguments per call, all valid. */
export function addArgs(i: number): Record<string, unknown> {
  return { a: i % 1000, b: 1 };
}

export function searchArgs(i: number): Record<string, unknown> {
  return {
    query: QUERIES[i % 4],
    filters: { tags: TAGS[(i >> 2) % 4], kinds: i % 3 === 0 ? ['doc'] : ['code', 'issue'], ...(i % 2 === 0 ? { minStars: i % 50 } : {}) },
    ...(i % 5 === 0 ? {} : { limit: 1 + (i % 50) }),
  };
}

/** A timed call fails loudly on an error result: a benchmark of errors is no benchmark. */
export function ok(result: unknown): unknown {
  if ((result as { isError?: boolean }).isError) throw new Error(`tools/call failed: ${JSON.stringify(result)}`);
  return result;
}

/** Every side's answer must equal the first side's, and (when given) the expected content. */
export function checkSame(what: string, answers: ReadonlyArray<readonly [string, unknown]>, expectedText?: string): void {
  const [first, ...rest] = answers;
  if (!first) return;
  for (const [name, answer] of rest) {
    if (!isDeepStrictEqual(answer, first[1])) {
      throw new Error(
        `${what}: ${name} answers differently from ${first[0]}:\n ${first[0]}: ${JSON.stringify(first[1])}\n ${name}: ${JSON.stringify(answer)}`,
      );
    }
  }
  const content = (first[1] as { content?: unknown }).content;
  if (expectedText !== undefined && !isDeepStrictEqual(content, [{ type: 'text', text: expectedText }])) {
    throw new Error(`${what}: expected the text ${JSON.stringify(expectedText)}, got ${JSON.stringify(first[1])}`);
  }
}

/** Every side must refuse `what` with an error result (the texts differ between libraries). */
export function checkRefused(what: string, answers: ReadonlyArray<readonly [string, unknown]>): void {
  for (const [name, answer] of answers) {
    if ((answer as { isError?: boolean }).isError !== true) throw new Error(`${what}: ${name} accepted it: ${JSON.stringify(answer)}`);
  }
}
