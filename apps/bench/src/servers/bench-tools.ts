// What every server under test answers, written once: the `add` and `search` results, the extra
// tools' names, and the `--extra N` argument. Each server calls these, so the results on the wire
// are identical (checked before anything is timed).
export const SERVER_INFO = { name: 'bench', version: '1.0.0' } as const;
export const ADD_DESCRIPTION = 'Adds two numbers';
export const SEARCH_DESCRIPTION = 'Searches the catalog';

export const KINDS = ['doc', 'code', 'issue'] as const;
export type Kind = (typeof KINDS)[number];

/** The search arguments once validated, whichever library did it. */
export interface SearchArgs {
  query: string;
  filters: { tags: string[]; kinds: Kind[]; minStars?: number };
  limit?: number;
}

export const addText = (a: number, b: number): string => String(a + b);

/** A small deterministic answer that depends on every field, so a dropped or mangled field shows. */
export function searchText({ query, filters, limit }: SearchArgs): string {
  return `${limit ?? 10} hits for "${query}" in ${filters.kinds.join('+')} tagged ${filters.tags.join(',') || '-'} with >= ${filters.minStars ?? 0} stars`;
}

export const extraToolName = (i: number): string => `add_${i}`;
export const extraToolDescription = (i: number): string => `${ADD_DESCRIPTION} (copy ${i})`;

/** `--extra N`: N copies of `add` besides `add` and `search` (498 for a server of 500 tools). */
export function extraToolsFromArgv(argv: readonly string[]): number {
  const at = argv.indexOf('--extra');
  const count = at === -1 ? 0 : Number(argv[at + 1]);
  if (!Number.isInteger(count) || count < 0) throw new Error(`--extra takes a whole number of tools, got ${argv[at + 1]}`);
  return count;
}
