import {
  type Prompt,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Tool,
  UriTemplate,
} from '@modelcontextprotocol/client';
import { getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { HandlerFacts } from '../agent/span-record.js';
import type { Catalogue } from './connection.js';
import type { Schema } from './schema.js';

/** One entry of the catalogue, under the key the page files its form, run and facts by. */
export type Item =
  | { kind: 'tool'; key: string; name: string; entry: Tool }
  | { kind: 'resource'; key: string; name: string; entry: Resource }
  | { kind: 'template'; key: string; name: string; entry: ResourceTemplate }
  | { kind: 'prompt'; key: string; name: string; entry: Prompt };

export function itemsOf(catalogue: Catalogue): Item[] {
  return [
    ...catalogue.tools.map((entry): Item => ({ kind: 'tool', key: `tool:${entry.name}`, name: entry.name, entry })),
    ...catalogue.resources.map((entry): Item => ({ kind: 'resource', key: `resource:${entry.uri}`, name: entry.name, entry })),
    ...catalogue.templates.map((entry): Item => ({ kind: 'template', key: `template:${entry.uriTemplate}`, name: entry.name, entry })),
    ...catalogue.prompts.map((entry): Item => ({ kind: 'prompt', key: `prompt:${entry.name}`, name: entry.name, entry })),
  ];
}

export function matches(item: Item, query: string, facts: HandlerFacts | undefined): boolean {
  if (!query) return true;
  const text = JSON.stringify([
    facts?.where,
    facts?.tags.map((tag) => `#${tag}`),
    item.name,
    item.entry.description,
    'title' in item.entry ? item.entry.title : '',
    item.entry._meta,
  ]).toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .every((word) => text.includes(word));
}

/** The form's schema: a tool's input schema, a template's variables, a prompt's arguments. */
export function formSchema(item: Item): Schema | undefined {
  if (item.kind === 'tool') return item.entry.inputSchema as Schema;
  if (item.kind === 'template') {
    const names = new UriTemplate(item.entry.uriTemplate).variableNames;
    return { type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])), required: names };
  }
  if (item.kind === 'prompt') {
    const args = item.entry.arguments ?? [];
    return {
      type: 'object',
      properties: Object.fromEntries(args.map((a) => [a.name, { type: 'string', description: a.description }])),
      required: args.filter((a) => a.required).map((a) => a.name),
    };
  }
  return undefined;
}

/** A resource template's URI with the form's values in it (RFC 6570, by the SDK's own UriTemplate). */
export function expand(template: string, values: Record<string, unknown>): string {
  return new UriTemplate(template).expand(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)])));
}

export function Badges({ item, facts }: { item: Item; facts?: HandlerFacts }) {
  const entry = item.entry as Tool;
  const annotations = Object.entries(entry.annotations ?? {}).filter(([k]) => k !== 'title');
  const task = (entry as { execution?: { taskSupport?: string } }).execution?.taskSupport;
  const app = item.kind === 'tool' ? getToolUiResourceUri(entry) : undefined;
  return (
    <div class="badges">
      {facts && <span class="badge where">{facts.where}</span>}
      {facts?.tags.map((tag) => (
        <span key={tag} class="badge tag-badge">
          #{tag}
        </span>
      ))}
      {facts && facts.guards > 0 && <span class="badge">{facts.guards === 1 ? '1 guard' : `${facts.guards} guards`}</span>}
      {facts && facts.rateLimits > 0 && <span class="badge">rate-limited</span>}
      {annotations.map(([key, value]) => (
        <span key={key} class="badge">
          {key}: {String(value)}
        </span>
      ))}
      {task && <span class="badge">tasks: {task}</span>}
      {app && <span class="badge app-badge">MCP App {app}</span>}
      {'mimeType' in item.entry && item.entry.mimeType && <span class="badge">{item.entry.mimeType}</span>}
    </div>
  );
}
