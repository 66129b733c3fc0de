import type { Contract } from './contract-snapshot.js';
import { CONTRACT_TEXT as T } from './publish-messages.js';

type Json = Record<string, unknown>;
type Side = 'input' | 'output';

export type Severity = 'breaking' | 'compatible';

export interface ContractChange {
  readonly severity: Severity;
  /** `tool get_forecast`, `prompt summarize`, ... */
  readonly subject: string;
  readonly text: string;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const asObject = (value: unknown): Json => (isObject(value) ? value : {});

/**
 * Which way a change moves what a schema accepts. An input schema that accepts less breaks the
 * clients that send what it used to accept; an output schema that allows more breaks the clients
 * that read it. A changed pattern or format is neither provably wider nor narrower: it breaks both.
 */
type Direction = 'narrowed' | 'widened' | 'changed';

function severityOf(side: Side, direction: Direction): Severity {
  if (direction === 'changed') return 'breaking';
  return (side === 'input') === (direction === 'narrowed') ? 'breaking' : 'compatible';
}

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];

/** The JSON types a schema allows, or undefined when it does not say (any type). */
function typesOf(schema: Json): string[] | undefined {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.map(String);
  return undefined;
}

/** Whether `a` allows a type `b` does not (an integer is a number). */
function allowsMore(a: string[] | undefined, b: string[] | undefined): boolean {
  if (b === undefined) return false;
  if (a === undefined) return true;
  return a.some((t) => !b.includes(t) && !(t === 'integer' && b.includes('number')));
}

function enumOf(schema: Json): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  return undefined;
}

/** Follows `#/$defs/X` (and `#/definitions/X`) in the document the schema came from. */
function resolve(schema: Json, root: Json): { schema: Json; ref?: string } {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return { schema };
  const [, bag, name] = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref) ?? [];
  const target = bag && name ? asObject(root[bag])[name] : undefined;
  return { schema: isObject(target) ? target : {}, ref };
}

class SchemaComparison {
  constructor(
    private readonly side: Side,
    private readonly oldRoot: Json,
    private readonly newRoot: Json,
    private readonly report: (severity: Severity, text: string) => void,
  ) {}

  compare(oldRaw: Json, newRaw: Json, path = '', open: readonly string[] = []): void {
    const o = resolve(oldRaw, this.oldRoot);
    const n = resolve(newRaw, this.newRoot);
    // A DTO met again inside itself was compared where it was first met.
    const pair = `${o.ref}|${n.ref}`;
    if ((o.ref || n.ref) && open.includes(pair)) return;
    const inside = o.ref || n.ref ? [...open, pair] : open;
    this.constraints(o.schema, n.schema, T.where(this.side, path));
    this.properties(o.schema, n.schema, path, inside);
    if (isObject(o.schema.items) && isObject(n.schema.items)) this.compare(o.schema.items, n.schema.items, `${path}[]`, inside);
  }

  private emit(direction: Direction, text: string): void {
    this.report(severityOf(this.side, direction), text);
  }

  private constraints(o: Json, n: Json, where: string): void {
    const ot = typesOf(o);
    const nt = typesOf(n);
    if (allowsMore(ot, nt)) this.emit('narrowed', T.typeNarrowed(where, o.type, n.type));
    else if (allowsMore(nt, ot)) this.emit('widened', T.typeWidened(where, o.type, n.type));

    for (const key of [...LOWER_BOUNDS, ...UPPER_BOUNDS]) {
      const from = typeof o[key] === 'number' ? (o[key] as number) : undefined;
      const to = typeof n[key] === 'number' ? (n[key] as number) : undefined;
      if (from === to) continue;
      const lower = LOWER_BOUNDS.includes(key);
      const narrowed = to !== undefined && (from === undefined || (lower ? to > from : to < from));
      this.emit(narrowed ? 'narrowed' : 'widened', narrowed ? T.boundNarrowed(where, key, from, to) : T.boundWidened(where, key, from, to));
    }

    for (const key of ['pattern', 'format']) {
      if (o[key] === n[key]) continue;
      if (n[key] === undefined) this.emit('widened', T.constraintChanged(where, key, o[key], undefined));
      else this.emit(o[key] === undefined ? 'narrowed' : 'changed', T.constraintChanged(where, key, o[key], n[key]));
    }

    const oe = enumOf(o);
    const ne = enumOf(n);
    if (oe && !ne) this.emit('widened', T.enumDropped(where));
    else if (!oe && ne) this.emit('narrowed', T.enumAdded(where, ne));
    else if (oe && ne) {
      const has = (values: unknown[], v: unknown) => values.some((w) => JSON.stringify(w) === JSON.stringify(v));
      const removed = oe.filter((v) => !has(ne, v));
      const added = ne.filter((v) => !has(oe, v));
      if (removed.length > 0) this.emit('narrowed', T.enumValuesRemoved(where, removed));
      if (added.length > 0) this.emit('widened', T.enumValuesAdded(where, added));
    }
  }

  private properties(o: Json, n: Json, path: string, open: readonly string[]): void {
    const oldProps = asObject(o.properties);
    const newProps = asObject(n.properties);
    const oldReq = new Set(Array.isArray(o.required) ? o.required.map(String) : []);
    const newReq = new Set(Array.isArray(n.required) ? n.required.map(String) : []);
    const input = this.side === 'input';
    for (const name of new Set([...Object.keys(oldProps), ...Object.keys(newProps)])) {
      const at = path === '' ? name : `${path}.${name}`;
      if (!(name in newProps)) {
        if (!input) this.report('breaking', T.outputFieldRemoved(at));
        else if (n.additionalProperties === false) this.report('breaking', T.argumentRemovedRefused(at));
        else this.report('compatible', T.argumentRemovedIgnored(at));
      } else if (!(name in oldProps)) {
        if (!input) this.report('compatible', T.outputFieldAdded(at));
        else if (newReq.has(name)) this.report('breaking', T.argumentAddedRequired(at));
        else this.report('compatible', T.argumentAddedOptional(at));
      } else {
        if (input && newReq.has(name) && !oldReq.has(name)) this.report('breaking', T.argumentNowRequired(at));
        if (input && !newReq.has(name) && oldReq.has(name)) this.report('compatible', T.argumentNowOptional(at));
        if (!input && oldReq.has(name) && !newReq.has(name)) this.report('breaking', T.outputFieldOptional(at));
        if (!input && !oldReq.has(name) && newReq.has(name)) this.report('compatible', T.outputFieldAlwaysPresent(at));
        this.compare(asObject(oldProps[name]), asObject(newProps[name]), at, open);
      }
    }
  }
}

/**
 * The hints a client may act on (auto-approve a read-only tool, retry an idempotent one), with the
 * value that promises something. Losing the promise breaks such clients; gaining it does not.
 */
const PROMISES: Record<string, boolean> = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false };

function compareTool(name: string, o: Json, n: Json, add: (c: ContractChange) => void): void {
  const subject = T.subject.tool(name);
  const report = (severity: Severity, text: string) => add({ severity, subject, text });
  const inputOld = asObject(o.inputSchema);
  const inputNew = asObject(n.inputSchema);
  new SchemaComparison('input', inputOld, inputNew, report).compare(inputOld, inputNew);
  if (isObject(o.outputSchema) && isObject(n.outputSchema)) {
    new SchemaComparison('output', o.outputSchema, n.outputSchema, report).compare(o.outputSchema, n.outputSchema);
  } else if (isObject(o.outputSchema)) report('breaking', T.outputSchemaRemoved);
  else if (isObject(n.outputSchema)) report('compatible', T.outputSchemaAdded);

  const ao = asObject(o.annotations);
  const an = asObject(n.annotations);
  for (const key of new Set([...Object.keys(ao), ...Object.keys(an)])) {
    if (ao[key] === an[key] || typeof ao[key] === 'object' || typeof an[key] === 'object') continue;
    const lost = key in PROMISES && ao[key] === PROMISES[key];
    report(lost ? 'breaking' : 'compatible', T.annotationChanged(key, ao[key], an[key]));
  }
}

function comparePrompt(name: string, o: Json, n: Json, add: (c: ContractChange) => void): void {
  const subject = T.subject.prompt(name);
  const args = (p: Json) =>
    new Map((Array.isArray(p.arguments) ? p.arguments : []).map((a) => [String(asObject(a).name), asObject(a).required === true]));
  const before = args(o);
  const after = args(n);
  for (const [arg, required] of after) {
    if (!before.has(arg)) add({ severity: required ? 'breaking' : 'compatible', subject, text: T.promptArgumentAdded(arg, required) });
    else if (required && !before.get(arg)) add({ severity: 'breaking', subject, text: T.promptArgumentNowRequired(arg) });
  }
  for (const arg of before.keys()) {
    if (!after.has(arg)) add({ severity: 'compatible', subject, text: T.promptArgumentRemoved(arg) });
  }
}

function compareKeyed(
  before: Record<string, Json>,
  after: Record<string, Json>,
  subject: (key: string) => string,
  add: (c: ContractChange) => void,
  compare?: (key: string, o: Json, n: Json, add: (c: ContractChange) => void) => void,
): void {
  for (const key of Object.keys(before).sort()) {
    if (!(key in after)) add({ severity: 'breaking', subject: subject(key), text: T.removed });
    else compare?.(key, before[key] as Json, after[key] as Json, add);
  }
  for (const key of Object.keys(after).sort()) {
    if (!(key in before)) add({ severity: 'compatible', subject: subject(key), text: T.added });
  }
}

/** What changed from the recorded contract to the current one, breaking changes first. */
export function diffContracts(before: Contract, after: Contract): ContractChange[] {
  const changes: ContractChange[] = [];
  const add = (change: ContractChange) => changes.push(change);
  compareKeyed(before.tools, after.tools, T.subject.tool, add, compareTool);
  compareKeyed(before.prompts, after.prompts, T.subject.prompt, add, comparePrompt);
  compareKeyed(before.resources, after.resources, T.subject.resource, add);
  compareKeyed(before.resourceTemplates, after.resourceTemplates, T.subject.resourceTemplate, add);
  return [...changes.filter((c) => c.severity === 'breaking'), ...changes.filter((c) => c.severity === 'compatible')];
}

/** `--check`'s report: one line per change, then the verdict. */
export function formatContractChanges(file: string, changes: readonly ContractChange[]): string {
  const breaking = changes.filter((c) => c.severity === 'breaking').length;
  const lines = changes.map((c) => T.line(c.severity, c.subject, c.text));
  return `${[...lines, T.summary(file, breaking, changes.length - breaking)].join('\n')}\n`;
}
