import type { Attributes, Counter, Histogram, Meter, MeterProvider, ObservableResult, UpDownCounter } from '@opentelemetry/api';
import { otelApi } from '../seams/opentelemetry.js';
import { ATTR, DURATION_BUCKETS, METRIC } from './mcp-semconv.js';
import type { ServerEvents } from './server-events.js';

/** The instrumentation scope of every span and metric Armature records. */
export const SCOPE = '@armature/core';

export interface Instruments {
  readonly operationDuration: Histogram;
  readonly sessionDuration: Histogram;
  readonly errors: Counter;
  readonly activeSessions: UpDownCounter;
  readonly refused: Counter;
  readonly runningTasks: UpDownCounter;
  readonly finishedTasks: Counter;
}

function instrumentsOf(meter: Meter, inFlight: InFlight): Instruments {
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
  // Observed when the metrics are collected, from a count kept per method: nothing recorded per request.
  meter
    .createObservableUpDownCounter(METRIC.activeRequests, { unit: '{request}', description: 'MCP requests being served.' })
    .addCallback((result) => inFlight.observe(result));
  return {
    operationDuration: meter.createHistogram(METRIC.operationDuration, {
      unit: 's',
      description: 'MCP request duration as observed on the server, from its receipt until its answer.',
      advice,
    }),
    sessionDuration: meter.createHistogram(METRIC.sessionDuration, {
      unit: 's',
      description: 'How long an MCP session (a 2025-11-25 connection) lasted on this server.',
      advice,
    }),
    errors: meter.createCounter(METRIC.errors, {
      unit: '{request}',
      description: 'MCP requests answered with a JSON-RPC error or a tool error result.',
    }),
    activeSessions: meter.createUpDownCounter(METRIC.activeSessions, {
      unit: '{session}',
      description: 'Open MCP sessions (2025-11-25 connections) on this server.',
    }),
    refused: meter.createCounter(METRIC.refused, {
      unit: '{request}',
      description: 'Requests or connections refused before being served, by reason (rate-limit, session-cap, ...).',
    }),
    runningTasks: meter.createUpDownCounter(METRIC.runningTasks, {
      unit: '{task}',
      description: 'Task handlers running in the background on this server.',
    }),
    finishedTasks: meter.createCounter(METRIC.finishedTasks, {
      unit: '{task}',
      description: 'Task handlers that finished, by the status they ended with.',
    }),
  };
}

/**
 * The app's instruments, from whatever meter provider is registered globally when they are used:
 * made again when the app registers another (the metrics API has no proxy, so instruments made
 * before the SDK started would stay no-ops), and undefined while the provider is the API's
 * no-op one, so that an app without metrics builds no attribute object per request.
 */
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

  observe(result: ObservableResult): void {
    for (const { count, attributes } of this.counts.values()) result.observe(count, attributes);
  }
}

export class ServerMetrics {
  private provider?: MeterProvider;
  private instruments?: Instruments;
  private readonly inFlight = new InFlight();

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
