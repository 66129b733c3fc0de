// The OpenTelemetry SDK registered the way docs/observability.md shows (tracer provider with a
// batch processor, context manager, W3C propagator, meter provider), its exporters dropping
// everything. `full` records traces (100% sampled) and metrics, `sampled` traces 1% of requests
// (and metrics), `metrics` metrics alone through the metrics API, `producer` metrics alone through
// Armature's MetricProducer given to the reader (docs/observability.md), `sampled-producer` both:
// traces sampled at 1% and metrics through the producer.
import { ArmatureMetricProducer, type TelemetryOptions } from '@armature/core';
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

export type OtelSetup = 'full' | 'traces' | 'metrics' | 'sampled' | 'producer' | 'sampled-producer';

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

/** Registers the SDK for `setup`; returns the app's telemetry option (the producer's, for `producer`). */
export function registerOtel(setup: OtelSetup): TelemetryOptions | undefined {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // The SDK's exporters enter a context at each export (to suppress tracing of their own work),
  // which turns the context manager's promise hooks on for the rest of the process: entered once
  // here, so that each line is measured in that steady state from its first call, not only once
  // its first export ran (5 s in, midway through a metrics-only line).
  context.with(context.active(), () => undefined);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  if (setup !== 'metrics' && setup !== 'producer') {
    const ratio = setup === 'sampled' || setup === 'sampled-producer' ? 0.01 : 1;
    const sampler = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    trace.setGlobalTracerProvider(new BasicTracerProvider({ sampler, spanProcessors: [new BatchSpanProcessor(dropSpans)] }));
  }
  if (setup === 'traces') return undefined;
  const producer =
    setup === 'producer' || setup === 'sampled-producer' ? new ArmatureMetricProducer({ temporality: dropMetrics }) : undefined;
  const reader = new PeriodicExportingMetricReader({
    exporter: dropMetrics,
    exportIntervalMillis: 5_000,
    metricProducers: producer ? [producer] : [],
  });
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  return producer ? { metrics: producer } : undefined;
}

/** The setup named after `--otel` in argv (`full` without it). */
export function otelSetupOf(argv: readonly string[]): OtelSetup {
  const at = argv.indexOf('--otel');
  const setup = (at > 0 ? argv[at + 1] : 'full') as OtelSetup;
  if (!['full', 'traces', 'metrics', 'sampled', 'producer', 'sampled-producer'].includes(setup))
    throw new Error(`--otel ${setup}: expected full, traces, metrics, sampled, producer or sampled-producer`);
  return setup;
}
