import { ArmatureMetricProducer, createMcpApp, Field, McpServer, Tool } from '@armature/core';
import { Client } from '@modelcontextprotocol/client';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  ConsoleMetricExporter,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricReader,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { IsString, MinLength } from 'class-validator';
import { connectInMemory, expectEqual } from './support/check.js';

// #region setup
/**
 * Registers the OpenTelemetry SDK before the app serves: spans and metrics go to the console here;
 * give an OTLP exporter (`@opentelemetry/exporter-trace-otlp-http`, ...) in production.
 */
export function startTelemetry(
  spans: SpanExporter = new ConsoleSpanExporter(),
  measures: PushMetricExporter = new ConsoleMetricExporter(),
) {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  trace.setGlobalTracerProvider(tracerProvider);
  // Nesting (the handler's spans under the request's) needs a context manager...
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  // ...and reading the client's `traceparent` needs a propagator.
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const reader: MetricReader = new PeriodicExportingMetricReader({ exporter: measures, exportIntervalMillis: 60_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    reader,
    async stop() {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      context.disable();
      propagation.disable();
      metrics.disable();
    },
  };
}
// #endregion

// #region server
export class OrderInput {
  @Field('The product to order')
  @IsString()
  @MinLength(2)
  product!: string;
}

const tracer = trace.getTracer('shop');

@McpServer({ name: 'shop', version: '1.0.0' })
export class ShopServer {
  @Tool({ description: 'Order a product' })
  async order(input: OrderInput) {
    // The request's span is active here: a span of your own nests under it.
    return tracer.startActiveSpan('reserve stock', async (span) => {
      span.setAttribute('shop.product', input.product);
      span.end();
      return `ordered ${input.product}`;
    });
  }
}
// #endregion

// #region producer
/**
 * Armature's metrics handed to the SDK's reader by a producer, at no per-request cost of the
 * metrics SDK: the same reader exports them with your own. Give the producer the reader's
 * exporter (its temporality) and the app.
 */
export function serveWithMetricProducer(measures: PushMetricExporter = new ConsoleMetricExporter()) {
  const armatureMetrics = new ArmatureMetricProducer({ temporality: measures });
  const reader = new PeriodicExportingMetricReader({
    exporter: measures,
    exportIntervalMillis: 60_000,
    metricProducers: [armatureMetrics],
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  // Your own instruments still go through the meter provider you register.
  metrics.setGlobalMeterProvider(meterProvider);
  const app = createMcpApp(ShopServer, { telemetry: { metrics: armatureMetrics } });
  return { app, reader, meterProvider };
}
// #endregion

// #region client
/** A caller that is traced itself sends its span in `_meta`: the server's spans join its trace. */
export function orderInTrace(shop: Client, traceparent: string) {
  return shop.callTool({ name: 'order', arguments: { product: 'tea' }, _meta: { traceparent } });
}
// #endregion

export const outputs: Record<string, string> = {
  spans: `tools/call order      parent: the client's span 00f067aa0ba902b7
execute_tool order    parent: tools/call order
reserve stock         parent: execute_tool order`,
};

export async function main(): Promise<void> {
  const spans = new InMemorySpanExporter();
  const telemetry = startTelemetry(spans, new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE));
  const app = createMcpApp(ShopServer);
  const { client, close } = await connectInMemory(app);
  try {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const result = await orderInTrace(client, `00-${traceId}-00f067aa0ba902b7-01`);
    expectEqual((result.content as Array<{ text: string }>)[0]?.text, 'ordered tea', 'the answer');

    const finished = spans.getFinishedSpans();
    const nameOf = (id: string | undefined) => finished.find((s) => s.spanContext().spanId === id)?.name ?? `the client's span ${id}`;
    const tree = ['tools/call order', 'execute_tool order', 'reserve stock']
      .map((name) => finished.find((s) => s.name === name))
      .map((s) => `${s?.name.padEnd(22)}parent: ${nameOf(s?.parentSpanContext?.spanId)}`)
      .join('\n');
    expectEqual(tree, outputs.spans, 'the spans and their parents');
    expectEqual(
      finished.every((s) => s.spanContext().traceId === traceId),
      true,
      'every span is in the client’s trace',
    );
    const server = finished.find((s) => s.name === 'tools/call order');
    expectEqual(
      [server?.attributes['mcp.method.name'], server?.attributes['gen_ai.tool.name'], server?.attributes['network.transport']],
      ['tools/call', 'order', 'pipe'],
      'the server span’s attributes',
    );

    const { resourceMetrics } = await telemetry.reader.collect();
    const names = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics.map((m) => m.descriptor.name));
    expectEqual(names.includes('mcp.server.operation.duration'), true, 'the operation duration is recorded');
  } finally {
    await close();
    await app.close();
    await telemetry.stop();
  }
  await checkMetricProducer();
}

/** The producer's wiring: the reader's export has the call's duration, with the SDK's own histogram shape. */
async function checkMetricProducer(): Promise<void> {
  const measures = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const { app, reader, meterProvider } = serveWithMetricProducer(measures);
  const { client, close } = await connectInMemory(app);
  try {
    await client.callTool({ name: 'order', arguments: { product: 'tea' } });
    await reader.forceFlush();
    const exported = measures.getMetrics().flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
    const duration = exported.find((metric) => metric.descriptor.name === 'mcp.server.operation.duration');
    const point = duration?.dataPoints[0];
    expectEqual(
      [duration?.descriptor.unit, point?.attributes['gen_ai.tool.name'], (point?.value as { count?: number } | undefined)?.count],
      ['s', 'order', 1],
      'the producer’s export: one call of order, in seconds',
    );
  } finally {
    await close();
    await app.close();
    await meterProvider.shutdown();
    metrics.disable();
  }
}
