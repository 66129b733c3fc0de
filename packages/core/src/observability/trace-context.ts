import type { Context as OtelContext, SpanContext, TextMapGetter, TextMapSetter } from '@opentelemetry/api';
import type { OtelApi } from '../seams/opentelemetry.js';

type Meta = Readonly<Record<string, unknown>>;

/** Reads `traceparent`, `tracestate` and `baggage` from a request's `params._meta`, string values only. */
const META_GETTER: TextMapGetter<Meta> = {
  get: (meta, key) => {
    const value = meta[key];
    return typeof value === 'string' ? value : undefined;
  },
  keys: (meta) => Object.keys(meta),
};

const HEADERS_GETTER: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

const META_SETTER: TextMapSetter<Record<string, unknown>> = {
  set: (meta, key, value) => {
    meta[key] = value;
  },
};

/** Where a request's server span hangs: its parent context, and the other context it links to. */
export interface RemoteParent {
  readonly context: OtelContext;
  readonly link?: SpanContext;
}

/**
 * The parent of a request's server span, by the MCP conventions: the context the client put in
 * `params._meta` (one MCP request may ride several HTTP requests, and one HTTP request carry
 * several MCP requests), linking the transport's (the HTTP request's `traceparent`, else the
 * ambient context, e.g. an HTTP instrumentation's span). Without `_meta` context, the HTTP
 * header's context is the parent, else the ambient one. Read with the app's configured
 * propagators (W3C Trace Context once the SDK registers it).
 */
export function remoteParent(api: OtelApi, meta: Meta, headers: Headers | undefined): RemoteParent {
  const { context, propagation, ROOT_CONTEXT, trace } = api;
  const active = context.active();
  const fromHeaders = headers ? propagation.extract(active, headers, HEADERS_GETTER) : active;
  const fromMeta = propagation.extract(ROOT_CONTEXT, meta, META_GETTER);
  const metaSpan = trace.getSpanContext(fromMeta);
  if (!metaSpan || !trace.isSpanContextValid(metaSpan)) return { context: fromHeaders };
  const transport = trace.getSpanContext(fromHeaders);
  return transport && trace.isSpanContextValid(transport) ? { context: fromMeta, link: transport } : { context: fromMeta };
}

/** `_meta` with the current context written in (the caller's own keys kept), for a request the server sends. */
export function metaWithContext(api: OtelApi, active: OtelContext, meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const written: Record<string, unknown> = { ...meta };
  api.propagation.inject(active, written, META_SETTER);
  return written;
}
