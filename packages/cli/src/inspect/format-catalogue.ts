import type { Finding } from './lint-catalogue.js';
import type { Catalogue } from './load-catalogue.js';

type Json = Record<string, unknown>;

/** `server-json` and `server-card` are written by server-json.ts and server-card.ts: they need package.json as well as the catalogue. */
export type InspectFormat = 'text' | 'json' | 'markdown' | 'server-json' | 'server-card';
export const INSPECT_FORMATS: readonly InspectFormat[] = ['text', 'json', 'markdown', 'server-json', 'server-card'];

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `string`, `'en' | 'it'`, `Place`, `string[]`: a property's type in one word or so. */
function typeOf(schema: Json): string {
  if (typeof schema.$ref === 'string') return schema.$ref.split('/').pop() as string;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.type === 'array')
    return `${isObject(schema.items) && Object.keys(schema.items).length > 0 ? typeOf(schema.items) : 'unknown'}[]`;
  if (typeof schema.type === 'string') return schema.format ? `${schema.type} (${schema.format})` : schema.type;
  return 'any';
}

function range(min: unknown, max: unknown, unit = ''): string | undefined {
  if (min === undefined && max === undefined) return undefined;
  return `${min ?? ''}..${max ?? ''}${unit}`;
}

/** The DTO a property holds (itself or as list items), from the document's `$defs`. */
function nestedObject(p: Json, defs: Json): { name: string; schema: Json } | undefined {
  const ref = typeof p.$ref === 'string' ? p.$ref : isObject(p.items) && typeof p.items.$ref === 'string' ? p.items.$ref : undefined;
  const name = ref?.startsWith('#/$defs/') ? ref.slice('#/$defs/'.length) : undefined;
  return name !== undefined && isObject(defs[name]) ? { name, schema: defs[name] as Json } : undefined;
}

/**
 * One line per property: `city: string, 1..64 chars, required. City name`; a nested DTO's
 * properties follow it, indented (a DTO met again inside itself is named, not expanded).
 */
function describeProperties(schema: unknown, defs: Json = {}, open: readonly string[] = []): string[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const allDefs = isObject(schema.$defs) ? { ...defs, ...schema.$defs } : defs;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(schema.properties).flatMap(([name, raw]) => {
    const p = isObject(raw) ? raw : {};
    const facts = [
      typeOf(p),
      range(p.minLength, p.maxLength, ' chars'),
      range(p.minimum ?? p.exclusiveMinimum, p.maximum ?? p.exclusiveMaximum),
      range(p.minItems, p.maxItems, ' items'),
      // A format names what the pattern spells out (a Date's RFC 3339 form): show the format only.
      typeof p.pattern === 'string' && p.format === undefined ? `/${p.pattern}/` : undefined,
      'default' in p ? `default ${JSON.stringify(p.default)}` : undefined,
      required.has(name) ? 'required' : 'optional',
    ].filter((f): f is string => f !== undefined);
    const line = `${name}: ${facts.join(', ')}${typeof p.description === 'string' ? `. ${p.description}` : ''}`;
    const nested = nestedObject(p, allDefs);
    if (!nested || open.includes(nested.name)) return [line];
    return [line, ...describeProperties(nested.schema, allDefs, [...open, nested.name]).map((l) => `  ${l}`)];
  });
}

function hints(tool: Json): string[] {
  const a = isObject(tool.annotations) ? tool.annotations : {};
  const list: string[] = [];
  if (a.readOnlyHint === true) list.push('read-only');
  if (a.destructiveHint === true) list.push('destructive');
  if (a.idempotentHint === true) list.push('idempotent');
  if (a.openWorldHint === true) list.push('open world');
  return list;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function counts(c: Catalogue): string {
  return [
    plural(c.tools.length, 'tool'),
    plural(c.resources.length, 'resource'),
    plural(c.resourceTemplates.length, 'resource template'),
    plural(c.prompts.length, 'prompt'),
  ].join(', ');
}

export function formatText(catalogue: Catalogue, findings: readonly Finding[]): string {
  const out: string[] = [`${catalogue.server.name} ${catalogue.server.version}: ${counts(catalogue)}`];
  if (catalogue.tools.length > 0) out.push('', 'Tools');
  for (const tool of catalogue.tools) {
    const tags = hints(tool);
    out.push(`  ${String(tool.name)}${tags.length ? `  [${tags.join(', ')}]` : ''}`);
    if (typeof tool.description === 'string') out.push(`    ${tool.description}`);
    const input = describeProperties(tool.inputSchema);
    out.push(input.length === 0 ? '    input: (none)' : '    input:', ...input.map((line) => `      ${line}`));
    if (tool.outputSchema) out.push('    output:', ...describeProperties(tool.outputSchema).map((line) => `      ${line}`));
  }
  if (catalogue.resources.length + catalogue.resourceTemplates.length > 0) out.push('', 'Resources');
  for (const r of [...catalogue.resources, ...catalogue.resourceTemplates]) {
    out.push(`  ${String(r.uri ?? r.uriTemplate)}  (${String(r.name)}${r.mimeType ? `, ${String(r.mimeType)}` : ''})`);
    if (typeof r.description === 'string') out.push(`    ${r.description}`);
  }
  if (catalogue.prompts.length > 0) out.push('', 'Prompts');
  for (const p of catalogue.prompts) {
    out.push(`  ${String(p.name)}`);
    if (typeof p.description === 'string') out.push(`    ${p.description}`);
    for (const a of Array.isArray(p.arguments) ? (p.arguments as Json[]) : []) {
      out.push(
        `      ${String(a.name)}: ${a.required ? 'required' : 'optional'}${typeof a.description === 'string' ? `. ${a.description}` : ''}`,
      );
    }
  }
  out.push('', findings.length === 0 ? 'Lint: no findings' : `Lint: ${plural(findings.length, 'finding')}`);
  const width = Math.max(0, ...findings.map((f) => f.rule.length));
  for (const f of findings) out.push(`  ${f.rule.padEnd(width)}  ${f.where}: ${f.message}`);
  return `${out.join('\n')}\n`;
}

export function formatJson(catalogue: Catalogue, findings: readonly Finding[]): string {
  return `${JSON.stringify({ ...catalogue, findings }, null, 2)}\n`;
}

const cell = (text: unknown) =>
  String(text ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');

export function formatMarkdown(catalogue: Catalogue, findings: readonly Finding[]): string {
  const out: string[] = [`# ${catalogue.server.name} ${catalogue.server.version}`, '', `${counts(catalogue)}.`];
  if (catalogue.instructions) out.push('', `> ${catalogue.instructions.replace(/\n/g, '\n> ')}`);
  if (catalogue.tools.length > 0) out.push('', '## Tools');
  for (const tool of catalogue.tools) {
    const tags = hints(tool);
    out.push('', `### \`${String(tool.name)}\``, '', String(tool.description ?? ''));
    if (tags.length > 0) out.push('', `Hints: ${tags.join(', ')}.`);
    const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    if (Object.keys(properties).length > 0) {
      out.push('', '| Argument | Type | Required | Description |', '| --- | --- | --- | --- |');
      for (const [name, raw] of Object.entries(properties)) {
        const p = isObject(raw) ? raw : {};
        out.push(`| \`${name}\` | ${cell(typeOf(p))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(p.description)} |`);
      }
    }
    out.push(
      '',
      '<details><summary>Input schema</summary>',
      '',
      '```json',
      JSON.stringify(tool.inputSchema, null, 2),
      '```',
      '',
      '</details>',
    );
    if (tool.outputSchema) {
      out.push(
        '',
        '<details><summary>Output schema</summary>',
        '',
        '```json',
        JSON.stringify(tool.outputSchema, null, 2),
        '```',
        '',
        '</details>',
      );
    }
  }
  if (catalogue.resources.length + catalogue.resourceTemplates.length > 0) {
    out.push('', '## Resources', '', '| URI | Name | MIME type | Description |', '| --- | --- | --- | --- |');
    for (const r of [...catalogue.resources, ...catalogue.resourceTemplates]) {
      out.push(`| \`${cell(r.uri ?? r.uriTemplate)}\` | ${cell(r.name)} | ${cell(r.mimeType)} | ${cell(r.description)} |`);
    }
  }
  if (catalogue.prompts.length > 0) out.push('', '## Prompts');
  for (const p of catalogue.prompts) {
    out.push('', `### \`${String(p.name)}\``, '', String(p.description ?? ''));
    const args = Array.isArray(p.arguments) ? (p.arguments as Json[]) : [];
    if (args.length > 0) {
      out.push('', '| Argument | Required | Description |', '| --- | --- | --- |');
      for (const a of args) out.push(`| \`${cell(a.name)}\` | ${a.required ? 'yes' : 'no'} | ${cell(a.description)} |`);
    }
  }
  out.push('', '## Lint', '');
  if (findings.length === 0) out.push('No findings.');
  else {
    out.push('| Rule | Where | Finding |', '| --- | --- | --- |');
    for (const f of findings) out.push(`| ${f.rule} | ${cell(f.where)} | ${cell(f.message)} |`);
  }
  return `${out.join('\n')}\n`;
}

export function formatCatalogue(
  format: Exclude<InspectFormat, 'server-json' | 'server-card'>,
  catalogue: Catalogue,
  findings: readonly Finding[],
): string {
  if (format === 'json') return formatJson(catalogue, findings);
  if (format === 'markdown') return formatMarkdown(catalogue, findings);
  return formatText(catalogue, findings);
}
