import {
  type Attributes,
  type Counter,
  createNoopMeter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type UpDownCounter,
} from '@opentelemetry/api';
import { ATTR, DURATION_BUCKETS, METRIC } from './mcp-semconv.js';
import type { ServerEvents } from './server-events.js';

/** The instrumentation scope of every span and metric Armature records. */
export const SCOPE = '@armature/core';

export interface Instruments {
  readonly operationDuration: Histogram;
  readonly sessionDuration: Histogram;
  readonly errors: Counter;
  readonly activeRequests: UpDownCounter;
  readonly activeSessions: UpDownCounter;
  readonly refused: Counter;
  readonly runningTasks: UpDownCounter;
  readonly finishedTasks: Counter;
}

function instrumentsOf(meter: Meter): Instruments {
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS };
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
    activeRequests: meter.createUpDownCounter(METRIC.activeRequests, {
      unit: '{request}',
      description: 'MCP requests being served.',
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
export class ServerMetrics {
  private provider?: MeterProvider;
  private instruments?: Instruments;

  /** Counts the refusals the server's own event hub reports; returns the function that stops it. */
  listen(events: ServerEvents): () => void {
    return events.on((event) => {
      if (event.event !== 'refused') return;
      const attributes: Attributes = { [ATTR.refusal]: event.reason };
      if (event.method) attributes[ATTR.method] = event.method;
      this.current()?.refused.add(1, attributes);
    });
  }

  /** The instruments of the registered meter provider; undefined when none is registered. */
  current(): Instruments | undefined {
    const provider = metrics.getMeterProvider();
    if (provider !== this.provider) {
      this.provider = provider;
      const meter = provider.getMeter(SCOPE);
      this.instruments = meter === createNoopMeter() ? undefined : instrumentsOf(meter);
    }
    return this.instruments;
  }
}
