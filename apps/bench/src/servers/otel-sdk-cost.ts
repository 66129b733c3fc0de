// What the OpenTelemetry SDK's own calls cost, registered as the telemetry lines register it
// (otel-setup.ts), with no Armature in the process: the floor under the `telemetry ...` lines.
// `node dist/servers/otel-sdk-cost.js [--otel full|sampled|metrics|producer|sampled-producer] [--json]`
// prints CPU ns per operation, each the median of 7 rounds, and two sums per request:
// - `request`: the SDK's work for one request at the default detail, called as Armature calls it (a
//   SERVER span and a handler span with their attributes, each entered with context.with, and one
//   histogram record through the metrics API, none with a producer) around the one promise a stdio
//   `add` call makes on the server, traced or not (counted with an async hook: Armature ends the
//   spans of a step answered at once with no promise of its own), made inside the handler's
//   context, less the same shape run before the SDK was registered;
// - `floor`: the least any caller can ask of the SDK for the telemetry issue 36 prescribes, whatever
//   way it calls it: each span started and ended with its name and kind alone (no attribute, no
//   link, no context entered), a dropped root span's child left out, the histogram record with the
//   semantic conventions' attribute set (through the metrics API only), plus what the context
//   manager's hooks add to the call's one promise. A lower bound: the per-goal bound computed from
//   it (otel-ceiling.ts) holds for any instrumentation that records those spans and metrics.
import { type Attributes, context, metrics, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { otelSetupOf, registerOtel } from './otel-setup.js';

const setup = otelSetupOf(process.argv);
const json = process.argv.includes('--json');
const ROUNDS = 7;
/** Whether Armature's metrics go through the metrics API (not a producer, which asks the SDK nothing per request). */
const apiMetrics = setup !== 'producer' && setup !== 'sampled-producer';
/** Whether a tracer provider is registered (a root span per request). */
const traces = setup !== 'metrics' && setup !== 'producer';

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
  // With no tracer provider registered, Armature starts no span and enters no context.
  if (!traces) {
    const answer = promise();
    if (apiMetrics) duration.record((performance.now() - started) / 1000, REQUEST);
    return answer;
  }
  const span = tracer.startSpan('tools/call add', { kind: SpanKind.SERVER, attributes: REQUEST }, ROOT_CONTEXT);
  if (span.isRecording()) span.setAttribute('jsonrpc.request.id', String(i));
  const answer = context.with(trace.setSpan(ROOT_CONTEXT, span), handler);
  span.end();
  if (apiMetrics) duration.record((performance.now() - started) / 1000, REQUEST);
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
const SERVER = { kind: SpanKind.SERVER };
const figures = {
  'the promise of one add call, no SDK': bare,
  'the same promise, context manager entered': await perOp(N, promise),
  'root span start+end (SERVER, 5 attributes)': await perOp(N, () =>
    tracer.startSpan('tools/call add', { kind: SpanKind.SERVER, attributes: REQUEST }, ROOT_CONTEXT).end(),
  ),
  'root span start+end (SERVER, name and kind alone)': await perOp(N, () => tracer.startSpan('tools/call add', SERVER, ROOT_CONTEXT).end()),
  'child span start+end (4 attributes)': await perOp(N, () => tracer.startSpan('execute_tool add', { attributes: HANDLER }, parent).end()),
  'child span start+end (name alone)': await perOp(N, () => tracer.startSpan('execute_tool add', undefined, parent).end()),
  'context.with (sync function)': await perOp(N, () => context.with(ROOT_CONTEXT, () => undefined)),
  'histogram record (5 attributes)': await perOp(N, (i) => duration.record(i % 100, REQUEST)),
  'histogram record (no attribute)': await perOp(N, (i) => duration.record(i % 100)),
  'request at default detail, SDK work only': (await perOp(N, request)) - bareShape,
};
const hooks = Math.max(0, figures['the same promise, context manager entered'] - bare);
// A child span is started only under a recorded root: always at 100%, about 1% of requests at 1% (left out: a lower bound).
const child = setup === 'full' || setup === 'traces' ? figures['child span start+end (name alone)'] : 0;
const record = apiMetrics ? figures['histogram record (5 attributes)'] : 0;
const root = traces ? figures['root span start+end (SERVER, name and kind alone)'] : 0;
const floor = root + child + record + hooks;
if (json) {
  console.log(JSON.stringify({ setup, request: figures['request at default detail, SDK work only'], floor, figures }));
} else {
  console.log(
    `OpenTelemetry SDK costs, --otel ${setup}, CPU ns per operation (median of ${ROUNDS} rounds of ${N.toLocaleString('en-US')}):`,
  );
  for (const [what, ns] of Object.entries(figures)) console.log(`${Math.round(ns).toString().padStart(7)}  ${what}`);
  console.log(`${Math.round(floor).toString().padStart(7)}  floor: the least any caller can ask of the SDK per request for this setup`);
}
