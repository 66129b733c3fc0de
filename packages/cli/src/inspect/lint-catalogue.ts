import type { Catalogue } from './load-catalogue.js';

type Json = Record<string, unknown>;

/** One thing worth fixing in what a server advertises. */
export interface Finding {
  /** Rule id, e.g. `read-only-hint`. */
  readonly rule: string;
  /** `tool get_forecast`, `tool get_forecast, argument city`, `prompt summarize`... */
  readonly where: string;
  readonly message: string;
}

/** The rules, with what each checks: printed by `armature inspect --rules` and in the docs. */
export const RULES: Readonly<Record<string, string>> = {
  'tool-description': 'a tool description is missing, a placeholder (TODO), or too short to tell the model when to call it',
  'field-description': 'an argument (a DTO property, a prompt argument) has no description for the model',
  'tool-name': 'a name outside [A-Za-z0-9_-]{1,64}, which some LLM providers reject, or names mixing styles',
  'read-only-hint': 'a tool does not say whether it changes anything (annotations.readOnlyHint)',
  'schema-ref': 'a schema uses $ref/$defs (nested DTOs), which some providers do not resolve',
  'schema-composition': 'a schema uses anyOf/oneOf/allOf/not/if, which some providers reject in tool schemas',
  'schema-pattern': 'a pattern uses lookaround or backreferences, which RE2-based validators reject',
  'schema-format': 'a string format outside the widely supported ones (date-time, date, time, email, uri, uuid)',
  'schema-array-items': 'an array without an item type, which some providers reject',
  'missing-description': 'a resource or prompt description is missing or still a TODO',
  'undecorated-property': 'a DTO property with no decorator at all, so it is left out of the schema and refused (found in the sources)',
};

const PROVIDER_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const COMMON_FORMATS = new Set(['date-time', 'date', 'time', 'email', 'uri', 'uuid']);
const COMPOSITION = ['anyOf', 'oneOf', 'allOf', 'not', 'if'];
const MIN_DESCRIPTION = 20;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlaceholder(text: unknown): boolean {
  return typeof text !== 'string' || text.trim() === '' || /\bTODO\b/.test(text);
}

function styleOf(name: string): string {
  if (/^[a-z0-9]+(_[a-z0-9]+)+$/.test(name)) return 'snake_case';
  if (/^[a-z0-9]+(-[a-z0-9]+)+$/.test(name)) return 'kebab-case';
  if (/^[a-z][a-z0-9]*([A-Z][a-z0-9]*)+$/.test(name)) return 'camelCase';
  return 'single word';
}

type NodeKind = 'root' | 'property' | 'items' | 'definition' | 'composition';

/** Walks a JSON Schema, calling `visit` with each subschema, how it was reached, and a readable path. */
function walkSchema(
  schema: unknown,
  path: string,
  kind: NodeKind,
  visit: (node: Json, path: string, kind: NodeKind) => void,
  seen = new Set<unknown>(),
): void {
  if (!isObject(schema) || seen.has(schema)) return;
  seen.add(schema);
  visit(schema, path, kind);
  if (isObject(schema.properties)) {
    for (const [key, child] of Object.entries(schema.properties))
      walkSchema(child, path === '' ? key : `${path}.${key}`, 'property', visit, seen);
  }
  if (isObject(schema.items)) walkSchema(schema.items, `${path}[]`, 'items', visit, seen);
  if (isObject(schema.$defs)) for (const [key, child] of Object.entries(schema.$defs)) walkSchema(child, key, 'definition', visit, seen);
  for (const key of COMPOSITION) {
    const list = schema[key];
    if (Array.isArray(list)) for (const child of list) walkSchema(child, path, 'composition', visit, seen);
    else if (isObject(list)) walkSchema(list, path, 'composition', visit, seen);
  }
}

function lintSchema(schema: unknown, where: string, findings: Finding[]): void {
  const add = (rule: string, at: string, message: string) => findings.push({ rule, where: at, message });
  let refSeen = false;
  walkSchema(schema, '', 'root', (node, path, kind) => {
    const at = path === '' ? where : `${where}, argument ${path}`;
    if (kind === 'property' && typeof node.$ref !== 'string' && isPlaceholder(node.description)) {
      add('field-description', at, "no description: the model guesses what to send. Add @Field('What it is and its format')");
    }
    if ((typeof node.$ref === 'string' || isObject(node.$defs)) && !refSeen) {
      refSeen = true;
      add(
        'schema-ref',
        where,
        'uses $ref/$defs (a nested DTO). Some LLM providers do not resolve references; flatten it if one of them must call this tool',
      );
    }
    for (const key of COMPOSITION) {
      if (key in node) add('schema-composition', at, `uses ${key}, which some LLM providers reject in tool schemas`);
    }
    if (typeof node.pattern === 'string' && /\(\?<?[=!]|\\[1-9]/.test(node.pattern)) {
      add('schema-pattern', at, `the pattern /${node.pattern}/ uses lookaround or a backreference, which RE2-based validators reject`);
    }
    if (typeof node.format === 'string' && !COMMON_FORMATS.has(node.format)) {
      add('schema-format', at, `format "${node.format}" is not one of the widely supported formats (${[...COMMON_FORMATS].join(', ')})`);
    }
    if (node.type === 'array' && (!isObject(node.items) || Object.keys(node.items).length === 0)) {
      add('schema-array-items', at, "an array without an item type. Add @Field({ items: 'string' }) or a validator with { each: true }");
    }
  });
}

/** Checks a catalogue for what makes tools hard for models to use or for providers to accept. */
export function lintCatalogue(catalogue: Catalogue): Finding[] {
  const findings: Finding[] = [];
  const add = (rule: string, where: string, message: string) => findings.push({ rule, where, message });
  const styles = new Map<string, string[]>();

  for (const tool of catalogue.tools) {
    const name = String(tool.name);
    const where = `tool ${name}`;
    const description = tool.description;
    if (isPlaceholder(description)) {
      add('tool-description', where, 'the description is missing or still a TODO: say what the tool does and when to use it');
    } else if (String(description).trim().length < MIN_DESCRIPTION) {
      add('tool-description', where, `"${description}" is short: say what the tool does and when to use it (the model reads it to choose)`);
    }
    if (!PROVIDER_NAME.test(name)) {
      add('tool-name', where, 'some LLM providers accept only letters, digits, "_" and "-", up to 64 characters, in tool names');
    }
    const style = styleOf(name);
    if (style !== 'single word') styles.set(style, [...(styles.get(style) ?? []), name]);
    const annotations = isObject(tool.annotations) ? tool.annotations : {};
    if (typeof annotations.readOnlyHint !== 'boolean') {
      add('read-only-hint', where, 'say whether it changes anything: annotations: { readOnlyHint: true } (or false, with destructiveHint)');
    }
    lintSchema(tool.inputSchema, where, findings);
  }
  if (styles.size > 1) {
    const list = [...styles].map(([style, names]) => `${style}: ${names.join(', ')}`).join('; ');
    add('tool-name', 'tools', `the names mix styles (${list}); one style helps the model`);
  }

  for (const resource of [...catalogue.resources, ...catalogue.resourceTemplates]) {
    const where = `resource ${String(resource.uri ?? resource.uriTemplate)}`;
    if (isPlaceholder(resource.description)) add('missing-description', where, 'the description is missing or still a TODO');
  }
  for (const prompt of catalogue.prompts) {
    const where = `prompt ${String(prompt.name)}`;
    if (isPlaceholder(prompt.description)) add('missing-description', where, 'the description is missing or still a TODO');
    for (const argument of Array.isArray(prompt.arguments) ? (prompt.arguments as Json[]) : []) {
      if (isPlaceholder(argument.description)) {
        add('field-description', `${where}, argument ${String(argument.name)}`, "no description. Add @Field('...') to the property");
      }
    }
  }
  return findings;
}
