// Armature's metrics through the OpenTelemetry SDK's public MetricProducer interface (a reader's
// `metricProducers`): what a reader exports from the producer is what it exports from the SDK's own
// instruments fed through the metrics API, and with the producer wired the API's meter is never asked.
import { type MeterProvider as ApiMeterProvider, type Attributes, type Meter, metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  type Histogram,
  InMemoryMetricExporter,
  InstrumentType,
  MeterProvider,
  type MetricData,
  type MetricProducer,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { IsString, MinLength } from 'class-validator';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ArmatureMetricProducer, createMcpApp, Field, McpServer, Tool, ToolError } from '../src/index.js';
import { instrumentSpecs } from '../src/observability/instrument-specs.js';
import { RequestTracing } from '../src/observability/request-tracing.js';
import { ServerEvents } from '../src/observability/server-events.js';
import { connectInMemory } from './support/clients.js';
import { reportRefusal } from './support/refusal.js';

class Query {
  @Field('What to look for')
  @IsString()
  @MinLength(2)
  q!: string;
}

@McpServer({ name: 'measured', version: '1.0.0' })
class MeasuredServer {
  @Tool({ description: 'Echoes' })
  echo(input: Query) {
    return `echo ${input.q}`;
  }

  @Tool({ description: 'Answers once the test lets it' })
  async held() {
    await gate;
    return 'released';
  }

  @Tool({ description: 'Fails as a tool' })
  broken(_input: Query) {
    throw new ToolError('out of stock');
  }
}

let release: () => void = () => undefined;
let gate = new Promise<void>((resolve) => {
  release = resolve;
});

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()?.();
  metrics.disable();
});

/** A reader exporting to memory, with the exporter's temporality, and the meter provider it is bound to. */
function readerOf(temporality: AggregationTemporality, producer?: ArmatureMetricProducer) {
  const exporter = new InMemoryMetricExporter(temporality);
  const producers: MetricProducer[] = producer ? [producer] : [];
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000, metricProducers: producers });
  const provider = new MeterProvider({ readers: [reader] });
  open.push(() => provider.shutdown());
  return {
    exporter,
    provider,
    /** Exports now, and returns what this export sent. */
    async flush(): Promise<ResourceMetrics> {
      exporter.reset();
      await reader.forceFlush();
      const [exported] = exporter.getMetrics();
      if (!exported) throw new Error('nothing exported');
      return exported;
    },
  };
}

/** The same requests, whichever path: two good calls, a tool error, refused arguments, a refusal, then the session ends. */
async function serve(app: ReturnType<typeof createMcpApp>, round: number) {
  const connected = await connectInMemory(app);
  const { client } = connected;
  await client.callTool({ name: 'echo', arguments: { q: `hi ${round}` } });
  await client.callTool({ name: 'echo', arguments: { q: 'again' } });
  await client.callTool({ name: 'broken', arguments: { q: 'xx' } });
  await client.callTool({ name: 'echo', arguments: { q: 'x' } }).catch(() => undefined);
  reportRefusal(app);
  await connected.close();
}

const attributeKey = (attributes: Attributes) => JSON.stringify(Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b)));

/**
 * An export with what depends on the clock left out: times, and a histogram's sum, min, max and
 * buckets (the durations of two runs differ), of which the total count is kept; sorted by metric
 * and series. Everything else (names, units, descriptions, advice, types, temporality, attributes,
 * counts and sums of counters) is kept as exported.
 */
function shapeOf(exported: ResourceMetrics, clockFree = false) {
  const all: MetricData[] = exported.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => ({ ...metric, scope: scope.scope })));
  return all
    .map((metric) => ({
      ...metric,
      dataPoints: metric.dataPoints
        .map((point) => {
          const { startTime: _start, endTime: _end, ...rest } = point;
          if (clockFree || metric.dataPointType !== 0) return rest;
          const value = point.value as Histogram;
          return {
            ...rest,
            value: { count: value.count, counted: value.buckets.counts.reduce((a, b) => a + b, 0), boundaries: value.buckets.boundaries },
          };
        })
        .sort((a, b) => attributeKey(a.attributes).localeCompare(attributeKey(b.attributes))),
    }))
    .sort((a, b) => a.descriptor.name.localeCompare(b.descriptor.name));
}

describe('ArmatureMetricProducer', () => {
  for (const temporality of [AggregationTemporality.CUMULATIVE, AggregationTemporality.DELTA]) {
    const which = temporality === AggregationTemporality.CUMULATIVE ? 'cumulative' : 'delta';
    it(`exports, through a reader's metricProducers, what the SDK's instruments export through the metrics API (${which} exporter)`, async () => {
      // Through the metrics API: a meter provider registered globally.
      const api = readerOf(temporality);
      metrics.setGlobalMeterProvider(api.provider);
      const viaApi = createMcpApp(MeasuredServer, { onError: () => undefined });
      open.push(() => viaApi.close());
      await serve(viaApi, 1);
      const apiFirst = await api.flush();
      await serve(viaApi, 2);
      const apiSecond = await api.flush();
      metrics.disable();

      // Through the producer: the reader takes it, the app records into it, no provider registered.
      const producer = new ArmatureMetricProducer({ temporality: readerOf(temporality).exporter });
      const produced = readerOf(temporality, producer);
      const viaProducer = createMcpApp(MeasuredServer, { onError: () => undefined, telemetry: { metrics: producer } });
      open.push(() => viaProducer.close());
      await serve(viaProducer, 1);
      const producedFirst = await produced.flush();
      await serve(viaProducer, 2);
      const producedSecond = await produced.flush();

      const names = shapeOf(producedFirst).map((metric) => metric.descriptor.name);
      expect(names).toEqual([
        'armature.server.active_requests',
        'armature.server.active_sessions',
        'armature.server.errors',
        'armature.server.refused',
        'mcp.server.operation.duration',
        'mcp.server.session.duration',
      ]);
      expect(shapeOf(producedFirst)).toEqual(shapeOf(apiFirst));
      expect(shapeOf(producedSecond)).toEqual(shapeOf(apiSecond));
      const durations = shapeOf(producedSecond).find((metric) => metric.descriptor.name === 'mcp.server.operation.duration');
      expect(durations?.aggregationTemporality).toBe(temporality);
      // Both rounds counted (cumulative), or the second alone (delta): 2 good calls and a tool error a round.
      const echoes = durations?.dataPoints.find(
        (point) => point.attributes['gen_ai.tool.name'] === 'echo' && !point.attributes['error.type'],
      );
      expect(echoes?.value).toMatchObject({ count: temporality === AggregationTemporality.CUMULATIVE ? 4 : 2 });
    });
  }

  it('puts each value in the bucket, sum, min and max the SDK histogram puts it in, and caps the series as the SDK does', async () => {
    const specs = instrumentSpecs();
    const sdk = readerOf(AggregationTemporality.CUMULATIVE);
    const meter = sdk.provider.getMeter('@armature/core');
    const { unit, description, boundaries } = specs.operationDuration;
    const histogram = meter.createHistogram(specs.operationDuration.name, {
      unit,
      description,
      advice: { explicitBucketBoundaries: [...(boundaries ?? [])] },
    });
    const counter = meter.createCounter(specs.errors.name, { unit: specs.errors.unit, description: specs.errors.description });
    const producer = new ArmatureMetricProducer();
    const ours = producer.attach(() => undefined);
    const produced = readerOf(AggregationTemporality.CUMULATIVE, producer);
    const frozen = Object.freeze({ 'mcp.method.name': 'tools/call' });
    // On and around each boundary, zero, past the last, and what the SDK drops (negative, NaN).
    const values = [0, 0.01, 0.0100001, 0.02, 0.3, 1, 1.5, 300, 300.5, 1e6, -1, Number.NaN];
    for (const value of values) {
      histogram.record(value, frozen);
      ours.operationDuration.record(value, frozen);
      // The same set built anew, as a failure's is: the same series.
      histogram.record(value, { 'mcp.method.name': 'tools/call' });
      ours.operationDuration.record(value, { 'mcp.method.name': 'tools/call' });
    }
    // A caller naming a new tool per request: past 2000 series, the SDK's overflow series.
    for (let i = 0; i < 2100; i++) {
      counter.add(1, { 'gen_ai.tool.name': `tool ${i}` });
      ours.errors.add(1, { 'gen_ai.tool.name': `tool ${i}` });
    }
    counter.add(-1, { 'gen_ai.tool.name': 'tool 1' });
    ours.errors.add(-1, { 'gen_ai.tool.name': 'tool 1' });
    const fromSdk = shapeOf(await sdk.flush(), true);
    const fromProducer = shapeOf(await produced.flush(), true).filter((metric) => metric.dataPoints.length > 0);
    expect(fromProducer.map((metric) => metric.descriptor.name)).toEqual(['armature.server.errors', 'mcp.server.operation.duration']);
    expect(fromProducer.find((metric) => metric.descriptor.name === 'armature.server.errors')?.dataPoints).toHaveLength(2000);
    expect(fromProducer).toEqual(fromSdk);
  });

  it('with the producer wired, asks nothing of the metrics API: no meter, no record per call', async () => {
    const real = new MeterProvider();
    open.push(() => real.shutdown());
    let asked = 0;
    const counting: ApiMeterProvider = {
      getMeter(name, version, options): Meter {
        asked++;
        return real.getMeter(name, version, options);
      },
    };
    metrics.setGlobalMeterProvider(counting);
    const producer = new ArmatureMetricProducer();
    const produced = readerOf(AggregationTemporality.CUMULATIVE, producer);
    const app = createMcpApp(MeasuredServer, { onError: () => undefined, telemetry: { metrics: producer } });
    open.push(() => app.close());
    await serve(app, 1);
    expect(asked).toBe(0);
    const durations = shapeOf(await produced.flush()).find((metric) => metric.descriptor.name === 'mcp.server.operation.duration');
    expect(durations?.dataPoints.reduce((calls, point) => calls + (point.value as { count: number }).count, 0)).toBe(4);
  });

  it("takes each instrument's temporality from the exporter it is given, as the reader does", async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
    const producer = new ArmatureMetricProducer({ temporality: exporter });
    const ours = producer.attach(() => undefined);
    ours.operationDuration.record(0.5, {});
    ours.activeSessions.add(1, {});
    const { resourceMetrics } = await producer.collect();
    const temporalities = Object.fromEntries(
      (resourceMetrics.scopeMetrics[0]?.metrics ?? []).map((metric) => [metric.descriptor.name, metric.aggregationTemporality]),
    );
    expect(temporalities).toEqual({
      'mcp.server.operation.duration': exporter.selectAggregationTemporality(InstrumentType.HISTOGRAM),
      'armature.server.active_sessions': exporter.selectAggregationTemporality(InstrumentType.UP_DOWN_COUNTER),
    });
  });

  it('measures a request answered at once as it answers, with no promise made around it', async () => {
    const producer = new ArmatureMetricProducer();
    const tracing = new RequestTracing(true, new ServerEvents(), { metrics: producer });
    const source = { sessionId: undefined, http: undefined, envelope: undefined };
    const request = { method: 'tools/call', traced: false, ctx: { requestId: 1, meta: {}, source } };
    const answer = tracing.serve(request, undefined, { name: 'echo' }, () => ({ content: [] }));
    expect(answer).toEqual({ content: [] });
    expect(answer).not.toBeInstanceOf(Promise);
    const { resourceMetrics } = await producer.collect();
    const durations = resourceMetrics.scopeMetrics[0]?.metrics.find((metric) => metric.descriptor.name === 'mcp.server.operation.duration');
    expect(durations?.dataPoints.map((point) => [point.attributes['gen_ai.tool.name'], (point.value as { count: number }).count])).toEqual([
      ['echo', 1],
    ]);
  });

  it('records into the producer while nothing at all is registered with the API, which stays unloaded', async () => {
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')];
    vi.resetModules();
    const { RequestTracing: Tracing } = await import('../src/observability/request-tracing.js');
    const { ArmatureMetricProducer: Producer } = await import('../src/observability/metric-producer.js');
    const { ServerEvents: Events } = await import('../src/observability/server-events.js');
    const { otelApi } = await import('../src/seams/opentelemetry.js');
    const producer = new Producer();
    const tracing = new Tracing(true, new Events(), { metrics: producer });
    const source = { sessionId: undefined, http: undefined, envelope: undefined };
    tracing.serve({ method: 'tools/call', traced: false, ctx: { requestId: 1, meta: {}, source } }, undefined, { name: 'echo' }, () => ({
      content: [],
    }));
    expect(otelApi()).toBeUndefined();
    const { resourceMetrics } = await producer.collect();
    const durations = resourceMetrics.scopeMetrics[0]?.metrics.find((metric) => metric.descriptor.name === 'mcp.server.operation.duration');
    expect(durations?.dataPoints.map((point) => (point.value as { count: number }).count)).toEqual([1]);
  });

  it('stops asking an app that closed for its requests in flight', async () => {
    const producer = new ArmatureMetricProducer();
    const app = createMcpApp(MeasuredServer, { telemetry: { metrics: producer } });
    const { client, close } = await connectInMemory(app);
    const active = async () => {
      const { resourceMetrics } = await producer.collect();
      const metric = resourceMetrics.scopeMetrics[0]?.metrics.find((m) => m.descriptor.name === 'armature.server.active_requests');
      return metric?.dataPoints.find((point) => point.attributes['mcp.method.name'] === 'tools/call')?.value;
    };
    const call = client.callTool({ name: 'held', arguments: {} });
    while ((await active()) !== 1) await new Promise((resolve) => setTimeout(resolve, 10));
    await app.close();
    // Still running on the closed app's connection, and no longer counted.
    expect(await active()).toBe(0);
    release();
    await call;
    await close();
    gate = new Promise<void>((resolve) => {
      release = resolve;
    });
  });

  it('is refused as telemetry.metrics unless made by new ArmatureMetricProducer() (ARM185)', () => {
    expect(() => createMcpApp(MeasuredServer, { telemetry: { metrics: { collect: async () => ({}) } as never } })).toThrow(/ARM185/);
  });
});
