import type { SpanRecord } from '../agent/span-record.js';

/** One row of a waterfall: the span, its depth under the call's root, and where its bar sits (0..1). */
export interface WaterfallRow {
  readonly span: SpanRecord;
  readonly depth: number;
  readonly offset: number;
  readonly width: number;
}

/** The spans of one trace, parents before their children, children by start time, with their bars. */
export function waterfall(spans: readonly SpanRecord[]): WaterfallRow[] {
  if (spans.length === 0) return [];
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | undefined, SpanRecord[]>();
  for (const span of spans) {
    // A parent outside the trace's spans here (the console's own call, or a span still open) is a root.
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const start = Math.min(...spans.map((s) => s.startMs));
  const total = Math.max(Math.max(...spans.map((s) => s.endMs)) - start, 0.001);
  const rows: WaterfallRow[] = [];
  const visit = (parent: string | undefined, depth: number) => {
    for (const span of [...(children.get(parent) ?? [])].sort((a, b) => a.startMs - b.startMs)) {
      rows.push({ span, depth, offset: (span.startMs - start) / total, width: Math.max((span.endMs - span.startMs) / total, 0.002) });
      visit(span.spanId, depth + 1);
    }
  };
  visit(undefined, 0);
  return rows;
}

const hex = (bytes: number) => Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, '0')).join('');

/** A fresh W3C `traceparent` for one call, and its trace id (the spans the server makes for the call carry it). */
export function newTraceParent(): { traceId: string; traceparent: string } {
  const traceId = hex(16);
  return { traceId, traceparent: `00-${traceId}-${hex(8)}-01` };
}
