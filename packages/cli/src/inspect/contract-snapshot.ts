import type { Catalogue } from './load-catalogue.js';

type Json = Record<string, unknown>;

/** The format of the snapshot file; a later format can still read (or refuse) an older one. */
export const CONTRACT_FORMAT = 1;

/**
 * What clients rely on: tools (input and output schemas, annotations), prompts and their
 * arguments, resources and templates, each keyed by name or URI. Descriptions are left out on
 * purpose (rewording one breaks nobody); the schemas keep theirs, so a snapshot documents itself.
 */
export interface Contract {
  readonly format: number;
  readonly server: string;
  readonly tools: Record<string, Json>;
  readonly prompts: Record<string, Json>;
  readonly resources: Record<string, Json>;
  readonly resourceTemplates: Record<string, Json>;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys sorted at every depth, so the file's text changes only when the contract does. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .filter((key) => value[key] !== undefined)
      .map((key) => [key, sortKeys(value[key])]),
  );
}

function pick(entry: Json, keys: readonly string[]): Json {
  return Object.fromEntries(keys.filter((key) => entry[key] !== undefined).map((key) => [key, entry[key]]));
}

function keyed(entries: readonly Json[], key: string, keys: readonly string[]): Record<string, Json> {
  return Object.fromEntries(entries.map((entry) => [String(entry[key]), pick(entry, keys)]));
}

export function contractOf(catalogue: Catalogue): Contract {
  return sortKeys({
    format: CONTRACT_FORMAT,
    server: catalogue.server.name,
    tools: keyed(catalogue.tools, 'name', ['title', 'annotations', 'inputSchema', 'outputSchema']),
    prompts: keyed(catalogue.prompts, 'name', ['title', 'arguments']),
    resources: keyed(catalogue.resources, 'uri', ['name', 'mimeType']),
    resourceTemplates: keyed(catalogue.resourceTemplates, 'uriTemplate', ['name', 'mimeType']),
  }) as Contract;
}

/** The snapshot file's text: stable, sorted, one trailing newline (diffs well in review). */
export function formatContract(contract: Contract): string {
  return `${JSON.stringify(sortKeys(contract), null, 2)}\n`;
}
