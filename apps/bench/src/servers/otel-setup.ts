// The OpenTelemetry SDK registered the way docs/observability.md shows (tracer provider with a
// batch processor, context manager, W3C propagator, meter provider), its exporters dropping
// everything. `full` records traces (100% sampled) and metrics, `sampled` traces 1% of requests
// (and metrics).
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';

export type OtelSetup = 'full' | 'traces' | 'metrics' | 'sampled';

const dropSpans: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: async () => {},
};
const dropMetrics: PushMetricExporter = {
  export: (_metrics, done) => done({ code: ExportResultCode.SUCCESS }),
  forceFlush: async () => {},
  shutdown: async () => {},
  selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
};

export function registerOtel(setup: OtelSetup): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (setup !== 'metrics') {
    const ratio = setup === 'sampled' ? 0.01 : 1;
    const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    trace.setGlobalTracerProvider(new BasicTracerProvider({ sampler, spanProcessors: [new BatchSpanProcessor(dropSpans)] }));
  }
  if (setup !== 'traces') {
    const reader = new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 5_000 });
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  }
}

/** The setup named after `--otel` in argv (`full` without it). */
export function otelSetupOf(argv: readonly string[]): OtelSetup {
  const at = argv.indexOf('--otel');
  const setup = (at > 0 ? argv[at + 1] : 'full') as OtelSetup;
  if (!['full', 'traces', 'metrics', 'sampled'].includes(setup))
    throw new Error(`--otel ${setup}: expected full, traces, metrics or sampled`);
  return setup;
}
