// OpenTelemetry through @opentelemetry/api: the official SDK (2.x, in memory) registered the way an
// app registers it, the official MCP client in memory and over real HTTP on 127.0.0.1.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type Attributes,
  context,
  metrics,
  propagation,
  type SpanContext,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { IsString, MinLength } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Context,
  createMcpApp,
  type ExecutionContext,
  Field,
  type Guard,
  type HttpListener,
  McpError,
  McpServer,
  type TelemetryOptions,
  Tool,
  ToolError,
  UseGuards,
} from '../src/index.js';
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

class Name {
  @Field('Your name')
  @IsString()
  name!: string;
}

/** Lets only Ada in (her name in the request's _meta). */
class OnlyAda implements Guard {
  canActivate(execution: ExecutionContext) {
    return execution.context.meta.user === 'ada';
  }
}

@McpServer({ name: 'traced', version: '1.0.0' })
class TracedServer {
  @Tool({ description: 'Only for Ada' })
  @UseGuards(OnlyAda)
  secret(input: Query) {
    return `secret ${input.q}`;
  }

  @Tool({ description: 'Answers with the trace id the handler runs in' })
  echo(input: Query) {
    return `${input.q} in trace ${trace.getActiveSpan()?.spanContext().traceId}`;
  }

  @Tool({ description: 'Fails with a tool error' })
  broken(_input: Query) {
    throw new ToolError('out of stock');
  }

  @Tool({ description: 'Fails with a JSON-RPC error' })
  refuse(_input: Query) {
    throw new McpError(-32042, 'not today');
  }

  @Tool({ description: 'Asks the user their name' })
  async greet(ctx: Context) {
    const answer = await ctx.elicit('Who are you?', Name);
    return answer.action === 'accept' ? `hello ${answer.content.name}` : 'no answer';
  }

  @Tool({ description: 'Runs as a task', task: 'required' })
  background(input: Query) {
    return `done ${input.q}`;
  }
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const HEADER_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const HEADER_SPAN = 'b7ad6b7169203331';

interface Telemetry {
  finished(): ReadableSpan[];
  /** Names of every span started, recorded or not (a sampled-out span never reaches a processor). */
  started: string[];
  collect(): Promise<Map<string, DataPoint<unknown>[]>>;
}

let open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.reverse()) await close();
  open = [];
});

/** Registers the SDK as an app does at start (tracer, context manager, W3C propagator, meter); unregistered after the test. */
function registerSdk(sampler?: Sampler): Telemetry {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor(spans)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const started: string[] = [];
  // The SDK's provider, with every startSpan counted.
  const counting: TracerProvider = {
    getTracer(name, version, options) {
      const tracer = tracerProvider.getTracer(name, version, options);
      return {
        startSpan: (spanName, spanOptions, parent) => {
          started.push(spanName);
          return tracer.startSpan(spanName, spanOptions, parent);
        },
        startActiveSpan: tracer.startActiveSpan.bind(tracer),
      } as Tracer;
    },
  };
  trace.setGlobalTracerProvider(counting);
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  open.push(async () => {
    trace.disable();
    context.disable();
    propagation.disable();
    metrics.disable();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });
  return {
    started,
    finished: () => spans.getFinishedSpans(),
    async collect() {
      const { resourceMetrics } = await reader.collect();
      const byName = new Map<string, DataPoint<unknown>[]>();
      for (const scope of resourceMetrics.scopeMetrics)
        for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric.dataPoints);
      return byName;
    },
  };
}

function named(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.find((s) => s.name === name);
  if (!found) throw new Error(`no span "${name}" among ${spans.map((s) => s.name).join(', ')}`);
  return found;
}

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const text = (result: unknown) => ((result as { content: Array<{ text: string }> }).content[0] as { text: string }).text;

/** Every span Armature can record: the tests of guard, validation and client-request spans ask for them. */
const STEPS: TelemetryOptions = { detail: 'steps' };

async function inMemory(capabilities: Record<string, unknown> = {}, telemetry?: TelemetryOptions) {
  const app = createMcpApp(TracedServer, { onError: () => undefined, tasks: { pollIntervalMs: 20 }, telemetry });
  const connected = await connectInMemory(app, capabilities);
  open.push(async () => {
    await connected.close();
    await app.close();
  });
  return connected.client;
}

/** Waits (bounded) until `check` passes: spans of background work end after the answer. */
async function until<T>(read: () => T, check: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = read();
    if (check(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('tracing (in memory, 2025-11-25)', () => {
  it('records a SERVER span per request named by the MCP conventions, parented by the traceparent in _meta, with handler and (detail: steps) validation spans under it', async () => {
    const otel = registerSdk();
    const client = await inMemory({}, STEPS);
    const result = await client.callTool({
      name: 'echo',
      arguments: { q: 'hi' },
      _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
    });
    // The handler ran with the request's trace active (what a structured log line reads).
    expect(text(result)).toBe(`hi in trace ${TRACE_ID}`);

    const spans = otel.finished();
    const server = named(spans, 'tools/call echo');
    expect(server.kind).toBe(1); // SpanKind.SERVER
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(server)).toBe(CLIENT_SPAN);
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'pipe',
    });
    expect(server.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(server.attributes['error.type']).toBeUndefined();
    expect(server.status.code).toBe(0); // UNSET

    const handler = named(spans, 'execute_tool echo');
    expect(parentOf(handler)).toBe(server.spanContext().spanId);
    expect(handler.attributes).toMatchObject({ 'armature.handler': 'TracedServer.echo', 'gen_ai.tool.name': 'echo' });
    const validation = named(spans, 'validate echo');
    expect(parentOf(validation)).toBe(handler.spanContext().spanId);
    expect(spans.every((s) => s.spanContext().traceId === TRACE_ID)).toBe(true);
    // Requests other than tool calls are spans too, named by their method alone.
    await client.listTools();
    expect(named(otel.finished(), 'tools/list').attributes['mcp.method.name']).toBe('tools/list');
  });

  it('ends the span of a handler, guard or validation answered at once as it answers, with no promise made around it', async () => {
    const otel = registerSdk();
    const tracing = new RequestTracing(true, new ServerEvents(), STEPS);
    const plan = { kind: 'tool', name: 'echo', where: 'TracedServer.echo' };
    const answer = tracing.handler(plan, () => 'done');
    expect(answer).toBe('done');
    expect(tracing.guards('echo', () => false)).toBe(false);
    const refused = { ok: false, issues: ['q'] };
    expect(tracing.validation('echo', () => refused)).toBe(refused);
    // Ended already, before any turn of the microtask queue.
    expect(otel.finished().map((span) => span.name)).toEqual(['execute_tool echo', 'guard echo', 'validate echo']);
    expect(named(otel.finished(), 'validate echo').attributes['error.type']).toBe('invalid_arguments');
    // What a step throws is still a rejection, its span ended with the exception recorded.
    const thrown = tracing.handler(plan, () => {
      throw new Error('boom');
    });
    await expect(thrown).rejects.toThrow('boom');
    const failed = otel.finished().filter((span) => span.name === 'execute_tool echo')[1];
    expect(failed?.events.map((event) => event.name)).toEqual(['exception']);
    // A pending answer ends its span once it settles.
    const later = tracing.handler(plan, async () => 'later');
    expect(later).toBeInstanceOf(Promise);
    await expect(later).resolves.toBe('later');
    expect(otel.finished().filter((span) => span.name === 'execute_tool echo')).toHaveLength(3);
  });

  it('asks the guards in a guard span under the handler span (detail: steps), which says whether they allowed the call', async () => {
    const otel = registerSdk();
    const client = await inMemory({}, STEPS);
    expect(text(await client.callTool({ name: 'secret', arguments: { q: 'ok' }, _meta: { user: 'ada' } }))).toBe('secret ok');
    await expect(client.callTool({ name: 'secret', arguments: { q: 'ok' }, _meta: { user: 'eve' } })).rejects.toThrow();
    const guards = otel.finished().filter((s) => s.name === 'guard secret');
    const handlers = otel.finished().filter((s) => s.name === 'execute_tool secret');
    expect(guards.map((g) => g.attributes['armature.guard.allowed'])).toEqual([true, false]);
    expect(guards.map(parentOf)).toEqual(handlers.map((h) => h.spanContext().spanId));
    // Refused by its guard, the second call was never validated.
    expect(otel.finished().filter((s) => s.name === 'validate secret')).toHaveLength(1);
  });

  it('marks a tool error result, a JSON-RPC error and refused arguments with error.type and an ERROR status', async () => {
    const otel = registerSdk();
    const client = await inMemory({}, STEPS);
    expect((await client.callTool({ name: 'broken', arguments: { q: 'xx' } })).isError).toBe(true);
    await expect(client.callTool({ name: 'refuse', arguments: { q: 'xx' } })).rejects.toThrow('not today');
    expect((await client.callTool({ name: 'echo', arguments: { q: 'x' } })).isError).toBe(true);

    const spans = otel.finished();
    const broken = named(spans, 'tools/call broken');
    expect(broken.attributes['error.type']).toBe('tool_error');
    expect(broken.status).toEqual({ code: 2, message: 'out of stock' });
    expect(named(spans, 'execute_tool broken').attributes['error.type']).toBe('tool_error');

    const refused = named(spans, 'tools/call refuse');
    expect(refused.attributes).toMatchObject({ 'error.type': '-32042', 'rpc.response.status_code': '-32042' });
    expect(refused.status.code).toBe(2);
    expect(refused.status.message).toContain('not today');

    expect(named(spans, 'validate echo').attributes['error.type']).toBe('invalid_arguments');
    expect(named(spans, 'tools/call echo').attributes['error.type']).toBe('tool_error');
  });

  it('sends an elicitation in a CLIENT span under the handler (detail: steps), and the client sees that span as traceparent in the request _meta', async () => {
    const otel = registerSdk();
    const client = await inMemory({ elicitation: { form: {} } }, STEPS);
    const seen: Array<Record<string, unknown> | undefined> = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      seen.push(request.params._meta as Record<string, unknown> | undefined);
      return { action: 'accept', content: { name: 'Ada' } } as never;
    });
    const result = await client.callTool({ name: 'greet', arguments: {}, _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` } });
    expect(text(result)).toBe('hello Ada');

    const spans = otel.finished();
    const elicit = named(spans, 'elicitation/create');
    expect(elicit.kind).toBe(2); // SpanKind.CLIENT
    expect(elicit.attributes['mcp.method.name']).toBe('elicitation/create');
    expect(parentOf(elicit)).toBe(named(spans, 'execute_tool greet').spanContext().spanId);
    expect(seen[0]?.traceparent).toBe(`00-${TRACE_ID}-${elicit.spanContext().spanId}-01`);
  });

  it("runs a task's background handler in a task span of the creating request's trace", async () => {
    const otel = registerSdk();
    const client = await inMemory();
    const created = (await client.callTool({
      name: 'background',
      arguments: { q: 'job' },
      task: { ttl: 10_000 },
      _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
    } as never)) as unknown as { task: { taskId: string } };
    const spans = await until(otel.finished, (all) => all.some((s) => s.name === 'task background'), 'the task span');
    const request = named(spans, 'tools/call background');
    const task = named(spans, 'task background');
    expect(task.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(task)).toBe(request.spanContext().spanId);
    expect(task.attributes['armature.task.id']).toBe(created.task.taskId);
    const handler = await until(() => otel.finished().find((s) => s.name === 'execute_tool background'), Boolean, 'the handler span');
    expect(parentOf(handler as ReadableSpan)).toBe(task.spanContext().spanId);
  });

  it('records by default one SERVER span per request and one span per handler call, nothing per step, and still hands the trace on to the client', async () => {
    const otel = registerSdk();
    const client = await inMemory({ elicitation: { form: {} } });
    const seen: Array<Record<string, unknown> | undefined> = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      seen.push(request.params._meta as Record<string, unknown> | undefined);
      return { action: 'accept', content: { name: 'Ada' } } as never;
    });
    const traceparent = `00-${TRACE_ID}-${CLIENT_SPAN}-01`;
    expect(text(await client.callTool({ name: 'secret', arguments: { q: 'ok' }, _meta: { user: 'ada', traceparent } }))).toBe('secret ok');
    expect(text(await client.callTool({ name: 'greet', arguments: {}, _meta: { traceparent } }))).toBe('hello Ada');
    expect(otel.finished().map((s) => s.name)).toEqual([
      'execute_tool secret',
      'tools/call secret',
      'execute_tool greet',
      'tools/call greet',
    ]);
    // No span for the elicitation: the handler's span is the traceparent the client's spans hang on.
    const handler = named(otel.finished(), 'execute_tool greet');
    expect(seen[0]?.traceparent).toBe(`00-${TRACE_ID}-${handler.spanContext().spanId}-01`);
  });

  it('starts no child span for a request its sampler leaves out, and hands the decision on to the client', async () => {
    // The sampler reads the request's method and tool, to sample by them.
    const parentBased = new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) });
    const asked: Array<[string, Attributes]> = [];
    const otel = registerSdk({
      shouldSample: (parent, traceId, name, kind, attributes, links) => {
        asked.push([name, { ...attributes }]);
        return parentBased.shouldSample(parent, traceId, name, kind, attributes, links);
      },
    });
    const client = await inMemory({ elicitation: { form: {} } }, STEPS);
    const seen: Array<Record<string, unknown> | undefined> = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      seen.push(request.params._meta as Record<string, unknown> | undefined);
      return { action: 'accept', content: { name: 'Ada' } } as never;
    });
    // The client's span was not sampled (flags 00): neither is the request, and nothing under it starts.
    const unsampled = `00-${TRACE_ID}-${CLIENT_SPAN}-00`;
    expect(text(await client.callTool({ name: 'secret', arguments: { q: 'ok' }, _meta: { user: 'ada', traceparent: unsampled } }))).toBe(
      'secret ok',
    );
    expect(text(await client.callTool({ name: 'greet', arguments: {}, _meta: { traceparent: unsampled } }))).toBe('hello Ada');
    expect(otel.started).toEqual(['tools/call secret', 'tools/call greet']);
    expect(otel.finished()).toEqual([]);
    expect(seen[0]?.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`));
    expect(asked[0]).toEqual([
      'tools/call secret',
      expect.objectContaining({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'secret' }),
    ]);
    // A sampled request of the same app gets its children.
    await client.callTool({ name: 'echo', arguments: { q: 'hi' }, _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` } });
    expect(otel.started.slice(2)).toEqual(['tools/call echo', 'execute_tool echo', 'validate echo']);
  });

  it('refuses a telemetry option it does not know at start-up, naming the fix (ARM185)', () => {
    expect(() => createMcpApp(TracedServer, { telemetry: { detail: 'all' } as never })).toThrow(
      /telemetry is \{"detail":"all"\}; it must be true, false or \{ detail: 'handlers' \| 'steps', metrics: an ArmatureMetricProducer \} \[ARM185\]/,
    );
  });

  it('records nothing and allocates no span with telemetry: false', async () => {
    const otel = registerSdk();
    const app = createMcpApp(TracedServer, { onError: () => undefined, telemetry: false });
    const { client, close } = await connectInMemory(app);
    open.push(close);
    await client.callTool({ name: 'echo', arguments: { q: 'hi' } });
    expect(otel.finished()).toEqual([]);
    expect((await otel.collect()).size).toBe(0);
  });
});

describe('tracing over HTTP on 127.0.0.1', () => {
  async function listen(): Promise<HttpListener> {
    const app = createMcpApp(TracedServer, { onError: () => undefined });
    const listener = await app.listenHttp({ port: 0 });
    open.push(() => listener.close());
    return listener;
  }

  async function clientOf(url: string, headers: Record<string, string>, modern: boolean) {
    const client = new Client({ name: 'traced-client', version: '1.0.0' }, modern ? { versionNegotiation: { mode: 'auto' as const } } : {});
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    open.push(() => client.close().catch(() => undefined));
    return client;
  }

  for (const modern of [false, true]) {
    const revision = modern ? '2026-07-28' : '2025-11-25';
    it(`takes the parent from the HTTP traceparent header without _meta, and from _meta (linking the header) when both (${revision})`, async () => {
      const otel = registerSdk();
      const listener = await listen();
      const client = await clientOf(listener.url, { traceparent: `00-${HEADER_TRACE_ID}-${HEADER_SPAN}-01` }, modern);

      expect(text(await client.callTool({ name: 'echo', arguments: { q: 'hh' } }))).toBe(`hh in trace ${HEADER_TRACE_ID}`);
      const fromHeader = named(otel.finished(), 'tools/call echo');
      expect(parentOf(fromHeader)).toBe(HEADER_SPAN);
      expect(fromHeader.attributes).toMatchObject({
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'mcp.protocol.version': revision,
      });
      if (!modern) expect(typeof fromHeader.attributes['mcp.session.id']).toBe('string');

      const result = await client.callTool({
        name: 'echo',
        arguments: { q: 'mm' },
        _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
      });
      expect(text(result)).toBe(`mm in trace ${TRACE_ID}`);
      const fromMeta = otel.finished().filter((s) => s.name === 'tools/call echo')[1] as ReadableSpan;
      expect(parentOf(fromMeta)).toBe(CLIENT_SPAN);
      const linked = fromMeta.links.map((l) => l.context as SpanContext);
      expect(linked.map((c) => [c.traceId, c.spanId])).toEqual([[HEADER_TRACE_ID, HEADER_SPAN]]);
    });
  }
});

describe('an elicitation round trip on 2026-07-28 over HTTP', () => {
  it('records the question in a CLIENT span of each round (detail: steps), both rounds in the trace the client sends, and the asked question carries that span as traceparent', async () => {
    const otel = registerSdk();
    const app = createMcpApp(TracedServer, { onError: () => undefined, telemetry: STEPS });
    const listener = await app.listenHttp({ port: 0 });
    open.push(() => listener.close());
    const client = new Client(
      { name: 'traced-client', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' as const } },
    );
    const seen: Array<Record<string, unknown> | undefined> = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      seen.push(request.params._meta as Record<string, unknown> | undefined);
      return { action: 'accept', content: { name: 'Ada' } } as never;
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    open.push(() => client.close().catch(() => undefined));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');

    const result = await client.callTool({ name: 'greet', arguments: {}, _meta: { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` } });
    expect(text(result)).toBe('hello Ada');
    const spans = otel.finished();
    const rounds = spans.filter((s) => s.name === 'tools/call greet');
    expect(rounds).toHaveLength(2);
    expect(rounds.map(parentOf)).toEqual([CLIENT_SPAN, CLIENT_SPAN]);
    const questions = spans.filter((s) => s.name === 'elicitation/create');
    expect(questions.map((q) => [q.kind, q.attributes['armature.input_required']])).toEqual([
      [2, true],
      [2, false],
    ]);
    expect(questions.every((q) => q.spanContext().traceId === TRACE_ID)).toBe(true);
    expect(seen[0]?.traceparent).toBe(`00-${TRACE_ID}-${questions[0]?.spanContext().spanId}-01`);
  });
});

describe('metrics', () => {
  it('records mcp.server.operation.duration, errors, in-flight requests, sessions, tasks and refusals', async () => {
    const otel = registerSdk();
    const app = createMcpApp(TracedServer, { onError: () => undefined, tasks: { pollIntervalMs: 20 } });
    const connected = await connectInMemory(app);
    open.push(() => app.close());
    const { client } = connected;
    await client.callTool({ name: 'echo', arguments: { q: 'hi' } });
    await client.callTool({ name: 'broken', arguments: { q: 'hi' } });
    await client.callTool({ name: 'background', arguments: { q: 'job' }, task: {} } as never);
    // The rate limiter and the other refusal sites tell the app's event hub; metrics count from there.
    reportRefusal(app);
    let recorded = await otel.collect();
    const finishedTasks = async () => {
      recorded = await otel.collect();
      return recorded.get('armature.tasks.finished')?.length ?? 0;
    };
    for (let i = 0; i < 200 && (await finishedTasks()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));

    const durations = recorded.get('mcp.server.operation.duration') as DataPoint<Histogram>[];
    const echo = durations.find((p) => p.attributes['gen_ai.tool.name'] === 'echo');
    expect(echo?.value.count).toBe(1);
    expect(echo?.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'network.transport': 'pipe' });
    expect(echo?.attributes['jsonrpc.request.id']).toBeUndefined();
    // The advised buckets of the conventions.
    expect(echo?.value.buckets.boundaries).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
    const errors = recorded.get('armature.server.errors') as DataPoint<number>[];
    expect(errors.map((p) => [p.attributes['gen_ai.tool.name'], p.attributes['error.type'], p.value])).toEqual([
      ['broken', 'tool_error', 1],
    ]);
    const inFlight = recorded.get('armature.server.active_requests') as DataPoint<number>[];
    expect(inFlight.every((p) => p.value === 0)).toBe(true);
    expect((recorded.get('armature.server.active_sessions') as DataPoint<number>[])[0]?.value).toBe(1);
    expect((recorded.get('armature.tasks.finished') as DataPoint<number>[])[0]).toMatchObject({
      attributes: { 'armature.task.status': 'completed', 'gen_ai.tool.name': 'background' },
      value: 1,
    });
    expect((recorded.get('armature.tasks.running') as DataPoint<number>[])[0]?.value).toBe(0);
    expect((recorded.get('armature.server.refused') as DataPoint<number>[])[0]).toMatchObject({
      attributes: { 'armature.refusal.reason': 'rate-limit', 'mcp.method.name': 'tools/call' },
      value: 1,
    });

    await connected.close();
    recorded = await otel.collect();
    expect((recorded.get('armature.server.active_sessions') as DataPoint<number>[])[0]?.value).toBe(0);
    const sessions = recorded.get('mcp.server.session.duration') as DataPoint<Histogram>[];
    expect(sessions[0]?.value.count).toBe(1);
    expect(sessions[0]?.attributes['mcp.protocol.version']).toBe('2025-11-25');
  });
});
