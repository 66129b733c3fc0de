import type { Attributes } from '@opentelemetry/api';
import { DURATION_BUCKETS, METRIC } from './mcp-semconv.js';

/** The instrumentation scope of every span and metric Armature records. */
export const SCOPE = '@armature/core';

/** What the app records a histogram measurement into: the API's histogram, or a producer's. */
export interface Recorder {
  record(value: number, attributes?: Attributes): void;
}

/** What the app adds to a counter or up-down counter through: the API's, or a producer's. */
export interface Adder {
  add(value: number, attributes?: Attributes): void;
}

export interface Instruments {
  readonly operationDuration: Recorder;
  readonly sessionDuration: Recorder;
  readonly errors: Adder;
  readonly activeSessions: Adder;
  readonly refused: Adder;
  readonly runningTasks: Adder;
  readonly finishedTasks: Adder;
}

/** The SDK's names of the instrument types (`InstrumentType`); Armature makes the first four. */
export type InstrumentType =
  | 'HISTOGRAM'
  | 'COUNTER'
  | 'UP_DOWN_COUNTER'
  | 'OBSERVABLE_UP_DOWN_COUNTER'
  | 'GAUGE'
  | 'OBSERVABLE_COUNTER'
  | 'OBSERVABLE_GAUGE';

/** An instrument as both paths make it: the metrics API's meter, or Armature's producer. */
export interface InstrumentSpec {
  readonly name: string;
  readonly type: InstrumentType;
  readonly unit: string;
  readonly description: string;
  /** A histogram's explicit bucket boundaries (the conventions' advice). */
  readonly boundaries?: readonly number[];
}

type Specs = Record<keyof Instruments | 'activeRequests', InstrumentSpec>;

/** Every instrument Armature records (docs/observability.md's metrics table), as both paths make it. */
export function instrumentSpecs(): Specs {
  return {
    operationDuration: {
      name: METRIC.operationDuration,
      type: 'HISTOGRAM',
      unit: 's',
      description: 'MCP request duration as observed on the server, from its receipt until its answer.',
      boundaries: DURATION_BUCKETS,
    },
    sessionDuration: {
      name: METRIC.sessionDuration,
      type: 'HISTOGRAM',
      unit: 's',
      description: 'How long an MCP session (a 2025-11-25 connection) lasted on this server.',
      boundaries: DURATION_BUCKETS,
    },
    errors: {
      name: METRIC.errors,
      type: 'COUNTER',
      unit: '{request}',
      description: 'MCP requests answered with a JSON-RPC error or a tool error result.',
    },
    activeRequests: {
      name: METRIC.activeRequests,
      type: 'OBSERVABLE_UP_DOWN_COUNTER',
      unit: '{request}',
      description: 'MCP requests being served.',
    },
    activeSessions: {
      name: METRIC.activeSessions,
      type: 'UP_DOWN_COUNTER',
      unit: '{session}',
      description: 'Open MCP sessions (2025-11-25 connections) on this server.',
    },
    refused: {
      name: METRIC.refused,
      type: 'COUNTER',
      unit: '{request}',
      description: 'Requests or connections refused before being served, by reason (rate-limit, session-cap, ...).',
    },
    runningTasks: {
      name: METRIC.runningTasks,
      type: 'UP_DOWN_COUNTER',
      unit: '{task}',
      description: 'Task handlers running in the background on this server.',
    },
    finishedTasks: {
      name: METRIC.finishedTasks,
      type: 'COUNTER',
      unit: '{task}',
      description: 'Task handlers that finished, by the status they ended with.',
    },
  };
}

/** Where an observable instrument's callback reports: the API's `ObservableResult`, or a producer's. */
export interface Observations {
  observe(value: number, attributes?: Attributes): void;
}
