// Loaded with `node --import` into the server process that `armature dev --ui` starts, before the
// app: registers an OpenTelemetry tracer provider whose span processor sends every finished span
// to the console over the IPC channel. Armature's own instrumentation (request, validation,
// handler, client-request and remote spans) then traces every call with no exporter set up.
// The API's global registry accepts a provider from a copy of @opentelemetry/api whose minor
// version is at least the reader's: this package pins the same API version as @armature/core.
import { type Context, context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, type ReadableSpan, type Span, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { HostMessage, SpanRecord } from './span-record.js';

const FLUSH_MS = 50;

const toMs = ([seconds, nanos]: readonly [number, number]) => seconds * 1000 + nanos / 1e6;

function record(span: ReadableSpan): SpanRecord {
  return {
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    name: span.name,
    kind: span.kind,
    startMs: toMs(span.startTime),
    endMs: toMs(span.endTime),
    status: { code: span.status.code, message: span.status.message },
    attributes: { ...span.attributes },
    events: span.events.map((event) => ({ name: event.name, timeMs: toMs(event.time) })),
  };
}

/** Sends finished spans in small batches (one IPC message per 50 ms at most). */
class ConsoleSpanProcessor implements SpanProcessor {
  private pending: SpanRecord[] = [];
  private timer: NodeJS.Timeout | undefined;

  onStart(_span: Span, _parent: Context): void {}

  onEnd(span: ReadableSpan): void {
    this.pending.push(record(span));
    this.timer ??= setTimeout(() => void this.forceFlush(), FLUSH_MS).unref();
  }

  async forceFlush(): Promise<void> {
    this.timer = undefined;
    if (this.pending.length === 0 || !process.connected) return;
    const message: HostMessage = { type: 'spans', spans: this.pending };
    this.pending = [];
    process.send?.(message);
  }

  shutdown(): Promise<void> {
    return this.forceFlush();
  }
}

if (process.send) {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new ConsoleSpanProcessor()] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // The IPC channel must not keep a server that is done from exiting.
  process.channel?.unref();
}
