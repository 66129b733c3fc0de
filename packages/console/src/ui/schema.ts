/** A JSON Schema node, as far as the call forms read it. */
export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  format?: string;
  default?: unknown;
  description?: string;
  title?: string;
  examples?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  $ref?: string;
  $defs?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
}

/** The schema a `$ref` points at (`#/$defs/X`, `#/definitions/X`), and a nullable union's non-null side. */
export function resolve(schema: Schema, root: Schema): Schema {
  let node = schema;
  for (let hops = 0; node.$ref && hops < 32; hops++) {
    const [, kind, name] = /^#\/(\$defs|definitions)\/(.+)$/.exec(node.$ref) ?? [];
    const target = kind && name ? root[kind as '$defs' | 'definitions']?.[decodeURIComponent(name)] : undefined;
    if (!target) break;
    const { $ref: _, ...rest } = node;
    node = { ...target, ...rest };
  }
  const variants = node.anyOf ?? node.oneOf;
  if (variants && !node.type) {
    const real = variants.filter((v) => v.type !== 'null');
    if (real.length === 1 && real[0]) return resolve({ ...real[0], description: node.description ?? real[0].description }, root);
  }
  return node;
}

/** The node's one type (`integer` for `["integer","null"]`), or undefined for a mixed or free one. */
export function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) {
    const real = schema.type.filter((t) => t !== 'null');
    return real.length === 1 ? real[0] : undefined;
  }
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  if (schema.enum) return 'enum';
  return undefined;
}

/** The value a new form starts from: the schema's defaults, and the objects that are required. */
export function initialValue(schema: Schema, root: Schema, required = true): unknown {
  const node = resolve(schema, root);
  if (node.default !== undefined) return structuredClone(node.default);
  if (typeOf(node) === 'object' && required) {
    const value: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const start = initialValue(child, root, node.required?.includes(key) ?? false);
      if (start !== undefined) value[key] = start;
    }
    return value;
  }
  if (typeOf(node) === 'array' && required) return [];
  return undefined;
}

/** `value` with `path` set to `next` (undefined removes the key), copying only the objects on the way. */
export function setAt(value: unknown, path: readonly (string | number)[], next: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return next;
  if (typeof head === 'number') {
    const list = Array.isArray(value) ? [...value] : [];
    list[head] = setAt(list[head], rest, next);
    return list;
  }
  const object = { ...((value && typeof value === 'object' ? value : {}) as Record<string, unknown>) };
  const child = setAt(object[head], rest, next);
  if (child === undefined) delete object[head];
  else object[head] = child;
  return object;
}

/** An RFC 3339 date-time as `<input type="datetime-local">` shows it (local time, to the second). */
export function toLocalInput(iso: unknown): string {
  if (typeof iso !== 'string' || iso === '') return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 19);
}

/** What `<input type="datetime-local">` holds, as an RFC 3339 date-time in UTC. */
export function fromLocalInput(local: string): string | undefined {
  if (local === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().replace(/\.000Z$/, 'Z');
}
