import type { Attributes, Meter, MeterProvider } from '@opentelemetry/api';
import { otelApi } from '../seams/opentelemetry.js';
import {
  type Adder,
  type InstrumentSpec,
  type Instruments,
  instrumentSpecs,
  type Observations,
  type Recorder,
  SCOPE,
} from './instrument-specs.js';
import { ATTR } from './mcp-semconv.js';
import type { ArmatureMetricProducer } from './metric-producer.js';
import type { ServerEvents } from './server-events.js';

/** The instruments of the metrics API's `meter`. */
function instrumentsOf(meter: Meter, inFlight: InFlight): Instruments {
  const specs = instrumentSpecs();
  const options = ({ unit, description, boundaries }: InstrumentSpec) =>
    boundaries ? { unit, description, advice: { explicitBucketBoundaries: [...boundaries] } } : { unit, description };
  const histogram = (spec: InstrumentSpec): Recorder => meter.createHistogram(spec.name, options(spec));
  const counter = (spec: InstrumentSpec): Adder =>
    spec.type === 'COUNTER' ? meter.createCounter(spec.name, options(spec)) : meter.createUpDownCounter(spec.name, options(spec));
  // Observed when the metrics are collected, from a count kept per method: nothing recorded per request.
  meter
    .createObservableUpDownCounter(specs.activeRequests.name, options(specs.activeRequests))
    .addCallback((result) => inFlight.observe(result));
  return {
    operationDuration: histogram(specs.operationDuration),
    sessionDuration: histogram(specs.sessionDuration),
    errors: counter(specs.errors),
    activeSessions: counter(specs.activeSessions),
    refused: counter(specs.refused),
    runningTasks: counter(specs.runningTasks),
    finishedTasks: counter(specs.finishedTasks),
  };
}

/** The requests being served, by method, for `armature.server.active_requests`. */
class InFlight {
  private readonly counts = new Map<string, { count: number; readonly attributes: Attributes }>();

  started(method: string): void {
    const entry = this.counts.get(method);
    if (entry) entry.count++;
    else this.counts.set(method, { count: 1, attributes: Object.freeze({ [ATTR.method]: method }) });
  }

  ended(method: string): void {
    const entry = this.counts.get(method);
    if (entry) entry.count--;
  }

  observe(result: Observations): void {
    for (const { count, attributes } of this.counts.values()) result.observe(count, attributes);
  }
}

/**
 * The app's instruments. With an {@link ArmatureMetricProducer} (chosen when the app is made), the
 * producer's, and the metrics API is never asked. Else from whatever meter provider is registered
 * globally when they are used: made again when the app registers another (the metrics API has no
 * proxy, so instruments made before the SDK started would stay no-ops), and undefined while the
 * provider is the API's no-op one, so that an app without metrics builds no attribute object per
 * request.
 */
export class ServerMetrics {
  private provider?: MeterProvider;
  private instruments?: Instruments;
  private readonly inFlight = new InFlight();

  private readonly observer = (result: Observations) => this.inFlight.observe(result);

  constructor(private readonly producer?: ArmatureMetricProducer) {
    if (producer) this.instruments = producer.attach(this.observer);
  }

  /** Whether the metrics go to a producer (recorded whatever is registered with the API). */
  get producing(): boolean {
    return this.producer !== undefined;
  }

  /** The app closed: a producer it shares with other apps stops asking for its requests in flight. */
  close(): void {
    this.producer?.detach(this.observer);
  }

  /** A request began being served (counted while the app records metrics). */
  started(method: string): void {
    this.inFlight.started(method);
  }

  /** A request `started` was answered. */
  ended(method: string): void {
    this.inFlight.ended(method);
  }

  /** Counts the refusals the server's own event hub reports; returns the function that stops it. */
  listen(events: ServerEvents): () => void {
    return events.on((event) => {
      if (event.event !== 'refused') return;
      const attributes: Attributes = { [ATTR.refusal]: event.reason };
      if (event.method) attributes[ATTR.method] = event.method;
      this.current()?.refused.add(1, attributes);
    });
  }

  /** The instruments of the registered meter provider; undefined when none is registered (nor anything else: the API is then not loaded). */
  current(): Instruments | undefined {
    if (this.producer) return this.instruments;
    const api = otelApi();
    if (!api) return undefined;
    const provider = api.metrics.getMeterProvider();
    if (provider !== this.provider) {
      this.provider = provider;
      const meter = provider.getMeter(SCOPE);
      this.instruments = meter === api.createNoopMeter() ? undefined : instrumentsOf(meter, this.inFlight);
    }
    return this.instruments;
  }
}
