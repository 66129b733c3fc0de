import { PROTOCOL_VERSION_META_KEY, type Server } from '@modelcontextprotocol/server';
import type { Attributes, SpanKind, SpanOptions } from '@opentelemetry/api';
import { ATTR, EXECUTE_TOOL } from './mcp-semconv.js';

/** Past this many distinct sets (tool names come from callers), a set is built per request, not kept. */
const MAX_KEPT = 1_000;

/** A request's low-cardinality attributes, and its SERVER span's name by the conventions (`{mcp.method.name} {target}`) and options. */
export interface RequestAttributeSet {
  readonly attributes: Attributes;
  readonly spanName: string;
  readonly spanOptions: SpanOptions;
}

type SetPair = [RequestAttributeSet?, RequestAttributeSet?];

// Made once, not a closure per request: what `child` makes when an entry is missing.
const newMap = () => new Map();
const newPair = (): SetPair => [undefined, undefined];

/**
 * The low-cardinality attributes of a request (method, tool or prompt name, protocol version,
 * transport), shared by its span and its metrics, with its span's name: one frozen set per
 * distinct one, made the first time it is seen and handed out again after, so that a request
 * names its span and records its metrics without building a string or an attribute object.
 */
export class RequestAttributeSets {
  // method -> name ('' for none) -> protocol version ('' for none) -> [pipe, tcp]
  private readonly sets = new Map<string, Map<string, Map<string, SetPair>>>();
  private kept = 0;

  /** The set of a request: its method, its 2026-07-28 envelope, whether it came over HTTP, its connection and params. */
  of(
    method: string,
    envelope: Record<string, unknown> | undefined,
    http: unknown,
    server: Server | undefined,
    params: unknown,
  ): RequestAttributeSet {
    const name = method === 'tools/call' || method === 'prompts/get' ? (params as { name?: unknown } | undefined)?.name : undefined;
    const version = envelope?.[PROTOCOL_VERSION_META_KEY] ?? server?.getNegotiatedProtocolVersion();
    const named = typeof name === 'string' ? name : '';
    const versioned = typeof version === 'string' ? version : '';
    const viaHttp = http ? 1 : 0;
    const byName = this.child(this.sets, method);
    const byVersion = byName && this.child(byName, named);
    const pair = byVersion && this.child(byVersion, versioned, newPair);
    if (!pair) return setOf(method, named, versioned, viaHttp === 1);
    let set = pair[viaHttp];
    if (!set) {
      set = setOf(method, named, versioned, viaHttp === 1);
      pair[viaHttp] = set;
      this.kept++;
    }
    return set;
  }

  /** The entry of `map` under `key`, made if missing while fewer than MAX_KEPT sets are kept; else undefined. */
  private child<K, V>(map: Map<K, V>, key: K, make: () => V = newMap as () => V): V | undefined {
    const found = map.get(key);
    if (found || this.kept >= MAX_KEPT) return found;
    const made = make();
    map.set(key, made);
    return made;
  }
}

/** `SpanKind.SERVER`, which the API numbers as the specification does: the set is made without the API, which a producer's metrics do not load. */
const SERVER = 1 as SpanKind.SERVER;

function setOf(method: string, name: string, version: string, http: boolean): RequestAttributeSet {
  const attributes: Attributes = { [ATTR.method]: method };
  if (name && method === 'tools/call') {
    attributes[ATTR.toolName] = name;
    attributes[ATTR.operation] = EXECUTE_TOOL;
  } else if (name) attributes[ATTR.promptName] = name;
  if (version) attributes[ATTR.protocolVersion] = version;
  // HTTP runs over TCP; stdio (and the in-process transports of tests) are pipes.
  if (http) {
    attributes[ATTR.transport] = 'tcp';
    attributes[ATTR.protocolName] = 'http';
  } else attributes[ATTR.transport] = 'pipe';
  Object.freeze(attributes);
  return Object.freeze({
    attributes,
    spanName: name ? `${method} ${name}` : method,
    spanOptions: Object.freeze({ kind: SERVER, attributes }),
  });
}
