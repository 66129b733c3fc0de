import type { JsonSchema } from '../metadata/metadata-args.js';
import { isPlainObject } from './plain-object.js';

/** Fills the omitted nested-DTO properties of a JSON object with their advertised defaults. */
export type FillDefaults = (raw: Record<string, unknown>) => Record<string, unknown>;

interface FillNode {
  /** Properties whose nested-DTO default is advertised: filled when omitted. */
  readonly defaults: [key: string, value: unknown][];
  /** Nested-DTO properties whose class (or a class below it) has such defaults. */
  readonly children: [key: string, each: boolean, node: FillNode][];
}

/**
 * Compiles, from a DTO's advertised schema, what turns a call's arguments into what they mean:
 * an omitted property whose default is a nested DTO (or a list of them) gets that default as JSON,
 * at every level, so class-transformer makes instances of it as it does for sent values (a
 * property initialiser of plain objects would reach class-validator as plain objects). Primitive
 * defaults are left to the property initialisers. Undefined when the schema has none to fill.
 */
export function compileNestedDefaults(schema: JsonSchema): FillDefaults | undefined {
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  const nodes = new Map<JsonSchema, FillNode>();
  const nodeOf = (object: JsonSchema): FillNode => {
    let node = nodes.get(object);
    if (node) return node;
    node = { defaults: [], children: [] };
    nodes.set(object, node); // before the properties: a DTO may contain itself
    for (const [key, property] of Object.entries((object.properties ?? {}) as Record<string, JsonSchema>)) {
      const each = property.type === 'array';
      const ref = (each ? (property.items as JsonSchema | undefined)?.$ref : property.$ref) as string | undefined;
      const target = typeof ref === 'string' ? defs[ref.replace('#/$defs/', '')] : undefined;
      if (!target) continue;
      if (property.default !== undefined) node.defaults.push([key, property.default]);
      node.children.push([key, each, nodeOf(target)]);
    }
    return node;
  };
  const root = nodeOf(schema);
  const live = liveNodes(nodes);
  if (!live.has(root)) return undefined;
  for (const node of nodes.values()) node.children.splice(0, node.children.length, ...node.children.filter(([, , n]) => live.has(n)));
  return (raw) => fill(root, raw);
}

/** The nodes that fill something, themselves or below (a fixed point: the graph may have cycles). */
function liveNodes(nodes: Map<JsonSchema, FillNode>): Set<FillNode> {
  const live = new Set<FillNode>();
  for (const node of nodes.values()) if (node.defaults.length > 0) live.add(node);
  for (let grown = true; grown; ) {
    grown = false;
    for (const node of nodes.values()) {
      if (!live.has(node) && node.children.some(([, , child]) => live.has(child))) {
        live.add(node);
        grown = true;
      }
    }
  }
  return live;
}

/** `raw` with its defaults filled, copied where something changed (the caller's value is left as it is). */
function fill(node: FillNode, raw: Record<string, unknown>): Record<string, unknown> {
  let out = raw;
  const set = (key: string, value: unknown) => {
    if (out === raw) out = { ...raw };
    out[key] = value;
  };
  for (const [key, value] of node.defaults) if (out[key] === undefined) set(key, structuredClone(value));
  for (const [key, each, child] of node.children) {
    const value = out[key];
    if (!each) {
      if (isPlainObject(value)) {
        const filled = fill(child, value);
        if (filled !== value) set(key, filled);
      }
    } else if (Array.isArray(value)) {
      const items = value.map((item) => (isPlainObject(item) ? fill(child, item) : item));
      if (items.some((item, i) => item !== value[i])) set(key, items);
    }
  }
  return out;
}
