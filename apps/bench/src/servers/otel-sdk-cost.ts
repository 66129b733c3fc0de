// What the OpenTelemetry SDK's own calls cost, registered as the telemetry lines register it
// (otel-setup.ts), with no Armature in the process: the floor under the `telemetry ...` lines.
// `node dist/servers/otel-sdk-cost.js [--otel full|sampled|metrics]` prints CPU ns per operation,
// each the median of 7 rounds; `request` is the SDK's work for one request at the default detail
// (a SERVER span and a handler span, each entered with context.with, and one histogram record)
// around the one promise a stdio `add` call makes on the server, traced or not (counted with an
// async hook: Armature ends the spans of a step answered at once with no promise of its own), made
// inside the handler's context, less the same shape run before the SDK was registered.
import { type Attributes, context, metrics, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { otelSetupOf, registerOtel } from './otel-setup.js';

const setup = otelSetupOf(process.argv);
const ROUNDS = 7;

// The attribute sets Armature gives a stdio tools/call of `add`: the request's, the handler's.
const REQUEST: Attributes = Object.freeze({
  'mcp.method.name': 'tools/call',
  'gen_ai.tool.name': 'add',
  'gen_ai.operation.name': 'execute_tool',
  'mcp.protocol.version': '2025-11-25',
  'network.transport': 'pipe',
});
const HANDLER: Attributes = Object.freeze({
  'armature.handler': 'BenchServer.add',
  'armature.handler.kind': 'tool',
  'gen_ai.tool.name': 'add',
  'gen_ai.operation.name': 'execute_tool',
});

function cpuNs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

/** CPU ns per call of `op`, the median of ROUNDS rounds of `count` calls (after one round of warm-up). */
async function perOp(count: number, op: (i: number) => unknown): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const started = cpuNs();
    for (let i = 0; i < count; i++) {
      const result = op(i);
      if (result instanceof Promise) await result;
    }
    if (round > 0) rounds.push((cpuNs() - started) / count);
  }
  return rounds.sort((a, b) => a - b)[ROUNDS >> 1] as number;
}

/** The one promise of an `add` call. */
const promise = (): Promise<void> => Promise.resolve();

const tracer = trace.getTracer('otel-sdk-cost');

function handler(): Promise<void> {
  const parent = context.active();
  if (!trace.getSpan(parent)?.isRecording()) return promise();
  const span = tracer.startSpan('execute_tool add', { attributes: HANDLER }, parent);
  const answer = context.with(trace.setSpan(parent, span), promise);
  span.end();
  return answer;
}

function request(i: number): Promise<void> {
  const started = performance.now();
  const span = tracer.startSpan('tools/call add', { kind: SpanKind.SERVER, attributes: REQUEST }, ROOT_CONTEXT);
  if (span.isRecording()) span.setAttribute('jsonrpc.request.id', String(i));
  const answer = context.with(trace.setSpan(ROOT_CONTEXT, span), handler);
  span.end();
  duration.record((performance.now() - started) / 1000, REQUEST);
  return answer;
}

/** The same shape as `request` (a request, its handler, the call's promise), with no SDK call. */
function bareRequest(): Promise<void> {
  const started = performance.now();
  const answer = promise();
  void (performance.now() - started);
  return answer;
}

const N = 50_000;
const bare = await perOp(N, promise);
const bareShape = await perOp(N, bareRequest);
registerOtel(setup);
// After the registration: the metrics API has no proxy, an instrument made before stays a no-op.
const duration = metrics
  .getMeter('otel-sdk-cost')
  .createHistogram('mcp.server.operation.duration', { unit: 's', advice: { explicitBucketBoundaries: [0.01, 0.1, 1, 10] } });
// The context manager's promise hooks are installed by the first context.with (the SDK's own
// exporters enter one on their first export): from then on every promise of the process pays them.
context.with(ROOT_CONTEXT, () => undefined);
const parent = trace.setSpan(ROOT_CONTEXT, tracer.startSpan('parent'));
const figures = {
  'the promise of one add call, no SDK': bare,
  'the same promise, context manager entered': await perOp(N, promise),
  'root span start+end (SERVER, 5 attributes)': await perOp(N, () =>
    tracer.startSpan('tools/call add', { kind: SpanKind.SERVER, attributes: REQUEST }, ROOT_CONTEXT).end(),
  ),
  'child span start+end (4 attributes)': await perOp(N, () => tracer.startSpan('execute_tool add', { attributes: HANDLER }, parent).end()),
  'context.with (sync function)': await perOp(N, () => context.with(ROOT_CONTEXT, () => undefined)),
  'histogram record (5 attributes)': await perOp(N, (i) => duration.record(i % 100, REQUEST)),
  'request at default detail, SDK work only': (await perOp(N, request)) - bareShape,
};
console.log(`OpenTelemetry SDK costs, --otel ${setup}, CPU ns per operation (median of ${ROUNDS} rounds of ${N.toLocaleString('en-US')}):`);
for (const [what, ns] of Object.entries(figures)) console.log(`${Math.round(ns).toString().padStart(7)}  ${what}`);
