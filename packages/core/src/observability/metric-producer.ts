import type { Attributes } from '@opentelemetry/api';
import {
  type InstrumentSpec,
  type Instruments,
  type InstrumentType,
  instrumentSpecs,
  type Observations,
  SCOPE,
} from './instrument-specs.js';
import { DURATION_BUCKETS } from './mcp-semconv.js';
import {
  emptyHistogram,
  type HistogramPoint,
  type HrTime,
  hrNow,
  type Point,
  ProducedHistogram,
  ProducedSum,
  type SumPoint,
} from './produced-instruments.js';

// The shapes of `@opentelemetry/sdk-metrics`' `MetricProducer` and `CollectionResult`, written here
// so that core needs no SDK package, not even for its types: a producer made here is a
// `MetricProducer` to the SDK's type checker (a test checks it).

/** `AggregationTemporality`: DELTA (0) or CUMULATIVE (1), as the SDK numbers them. */
export type Temporality = 0 | 1;
const DELTA = 0;
const CUMULATIVE = 1;
/** `DataPointType.HISTOGRAM` and `DataPointType.SUM`. */
const HISTOGRAM_POINTS = 0;
const SUM_POINTS = 3;
/** `ValueType.DOUBLE`: what the SDK's instruments record when no value type is given. */
const DOUBLE = 1;

/** What picks each instrument's temporality: a push exporter (as a `PeriodicExportingMetricReader` asks it) or a reader. */
export interface TemporalitySource {
  selectAggregationTemporality?(instrumentType: InstrumentType): Temporality;
}

/** The options of an {@link ArmatureMetricProducer}. */
export interface ArmatureMetricProducerOptions {
  /**
   * Where each instrument's temporality comes from: give the exporter of the reader this producer
   * is given to (an OTLP exporter with `temporalityPreference: 'delta'`, say), so that Armature's
   * metrics have the temporality the SDK's own would. Left out: cumulative, the SDK's default.
   */
  temporality?: TemporalitySource;
}

interface Descriptor {
  readonly name: string;
  readonly type: InstrumentType;
  readonly description: string;
  readonly unit: string;
  readonly valueType: typeof DOUBLE;
  readonly advice: { readonly explicitBucketBoundaries?: number[] };
}

interface DataPoint<T> {
  readonly attributes: Attributes;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly value: T;
}

interface HistogramValue {
  readonly buckets: { readonly boundaries: number[]; readonly counts: number[] };
  readonly sum?: number;
  readonly count: number;
  readonly min?: number;
  readonly max?: number;
}

/** One instrument's data, as the SDK's `MetricData` (histogram or sum). */
export type ProducedMetricData =
  | {
      readonly descriptor: Descriptor;
      readonly aggregationTemporality: Temporality;
      readonly dataPointType: typeof HISTOGRAM_POINTS;
      readonly dataPoints: DataPoint<HistogramValue>[];
    }
  | {
      readonly descriptor: Descriptor;
      readonly aggregationTemporality: Temporality;
      readonly dataPointType: typeof SUM_POINTS;
      readonly dataPoints: DataPoint<number>[];
      readonly isMonotonic: boolean;
    };

/** The SDK's `Resource`: a reader keeps its meter provider's own, so a producer's is empty. */
interface EmptyResource {
  readonly attributes: Attributes;
  merge(other: EmptyResource | null): EmptyResource;
  getRawAttributes(): [];
}

const EMPTY_RESOURCE: EmptyResource = Object.freeze({
  attributes: Object.freeze({}),
  merge: (other: EmptyResource | null) => other ?? EMPTY_RESOURCE,
  getRawAttributes: (): [] => [],
});

/** What `collect` resolves to: the SDK's `CollectionResult`. */
export interface ProducedCollection {
  readonly resourceMetrics: {
    readonly resource: EmptyResource;
    readonly scopeMetrics: {
      readonly scope: { readonly name: string; readonly version: string };
      readonly metrics: ProducedMetricData[];
    }[];
  };
  readonly errors: unknown[];
}

/** How an instrument kept by the producer reports at a collection (undefined: nothing to report). */
type Collect = (now: HrTime) => ProducedMetricData | undefined;

/**
 * Armature's metrics, aggregated in place and handed to the OpenTelemetry SDK when a reader
 * collects them: give it to the app (`createMcpApp(servers, { telemetry: { metrics: producer } })`)
 * and to a reader (`new PeriodicExportingMetricReader({ exporter, metricProducers: [producer] })`).
 * A request then records its duration by bumping a bucket of a series found by its attribute set's
 * identity, instead of the SDK finding its series from the set's entries on every record; what a
 * reader exports is what the SDK's own instruments would (names, units, buckets, attributes,
 * temporality). The SDK's views do not apply to it. Collect it from one reader: a delta reader
 * takes what it reports.
 */
export class ArmatureMetricProducer {
  private readonly kept: Collect[] = [];
  private readonly observers = new Set<(result: Observations) => void>();
  /** The instruments the app records into, made the first time it asks. */
  private made?: Instruments;
  private readonly temporalitySource: TemporalitySource | undefined;

  constructor(options: ArmatureMetricProducerOptions = {}) {
    this.temporalitySource = options.temporality;
  }

  /**
   * @internal The instruments an app records into (the same for every app given this producer),
   * and `observer`, asked at each collection for the app's requests in flight.
   */
  attach(observer: (result: Observations) => void): Instruments {
    this.observers.add(observer);
    if (!this.made) {
      const specs = instrumentSpecs();
      this.made = {
        operationDuration: this.histogram(specs.operationDuration),
        sessionDuration: this.histogram(specs.sessionDuration),
        errors: this.sum(specs.errors, true),
        activeSessions: this.sum(specs.activeSessions, false),
        refused: this.sum(specs.refused, true),
        runningTasks: this.sum(specs.runningTasks, false),
        finishedTasks: this.sum(specs.finishedTasks, true),
      };
      this.observed(specs.activeRequests);
    }
    return this.made;
  }

  /** @internal An app that closed: its requests in flight are no longer asked for. */
  detach(observer: (result: Observations) => void): void {
    this.observers.delete(observer);
  }

  /** The SDK's `MetricProducer.collect`: Armature's metrics as they stand, in the SDK's shape. */
  async collect(): Promise<ProducedCollection> {
    const now = hrNow();
    const metrics: ProducedMetricData[] = [];
    for (const collect of this.kept) {
      const data = collect(now);
      if (data) metrics.push(data);
    }
    return {
      resourceMetrics: {
        resource: EMPTY_RESOURCE,
        scopeMetrics: metrics.length > 0 ? [{ scope: { name: SCOPE, version: '' }, metrics }] : [],
      },
      errors: [],
    };
  }

  private descriptor(spec: InstrumentSpec): { descriptor: Descriptor; temporality: Temporality } {
    const { name, type, description, unit, boundaries } = spec;
    const advice = boundaries ? { explicitBucketBoundaries: [...boundaries] } : {};
    const temporality = this.temporalitySource?.selectAggregationTemporality?.(type) ?? CUMULATIVE;
    return { descriptor: Object.freeze({ name, type, description, unit, valueType: DOUBLE, advice }), temporality };
  }

  private histogram(spec: InstrumentSpec): ProducedHistogram {
    const { descriptor, temporality } = this.descriptor(spec);
    const histogram = new ProducedHistogram(spec.boundaries ?? DURATION_BUCKETS);
    const boundaries = [...histogram.boundaries];
    this.kept.push((now) => {
      const dataPoints = dataPointsOf(
        histogram.series.points(),
        temporality,
        now,
        (point) => histogramValue(point, boundaries),
        (point) => Object.assign(point, emptyHistogram(point.attributes, boundaries.length + 1, now)),
      );
      if (dataPoints.length === 0) return undefined;
      return { descriptor, aggregationTemporality: temporality, dataPointType: HISTOGRAM_POINTS, dataPoints };
    });
    return histogram;
  }

  private sum(spec: InstrumentSpec, monotonic: boolean): ProducedSum {
    const { descriptor, temporality } = this.descriptor(spec);
    const sum = new ProducedSum(monotonic);
    this.kept.push((now) => {
      const dataPoints = dataPointsOf(
        sum.series.points(),
        temporality,
        now,
        (point) => point.value,
        (point) => resetSum(point, now),
      );
      if (dataPoints.length === 0) return undefined;
      return { descriptor, aggregationTemporality: temporality, dataPointType: SUM_POINTS, dataPoints, isMonotonic: monotonic };
    });
    return sum;
  }

  /** An observable up-down counter: its observers are asked at each collection (a delta reader gets the change since the last). */
  private observed(spec: InstrumentSpec): void {
    const { descriptor, temporality } = this.descriptor(spec);
    const sum = new ProducedSum(false);
    const last = new Map<SumPoint, number>();
    this.kept.push((now) => {
      for (const point of sum.series.points()) point.value = 0;
      const result: Observations = { observe: (value, attributes) => sum.add(value, attributes) };
      for (const observer of this.observers) observer(result);
      const dataPoints: DataPoint<number>[] = [];
      for (const point of sum.series.points()) {
        const value = temporality === DELTA ? point.value - (last.get(point) ?? 0) : point.value;
        dataPoints.push({ attributes: point.attributes, startTime: point.startTime, endTime: now, value });
        if (temporality === DELTA) {
          last.set(point, point.value);
          point.startTime = now;
        }
      }
      if (dataPoints.length === 0) return undefined;
      return { descriptor, aggregationTemporality: temporality, dataPointType: SUM_POINTS, dataPoints, isMonotonic: false };
    });
  }
}

/**
 * The data points a collection reports: every series with a measurement (cumulative), or those
 * measured since the last collection (delta), each `reset` once reported to a delta reader.
 */
function dataPointsOf<P extends Point, V>(
  points: IterableIterator<P>,
  temporality: Temporality,
  now: HrTime,
  read: (point: P) => V,
  reset: (point: P) => void,
): DataPoint<V>[] {
  const dataPoints: DataPoint<V>[] = [];
  for (const point of points) {
    if (temporality === DELTA && point.fresh === 0) continue;
    point.fresh = 0;
    dataPoints.push({ attributes: point.attributes, startTime: point.startTime, endTime: now, value: read(point) });
    if (temporality === DELTA) reset(point);
  }
  return dataPoints;
}

function histogramValue(point: HistogramPoint, boundaries: number[]): HistogramValue {
  return {
    min: point.min,
    max: point.max,
    sum: point.sum,
    buckets: { boundaries, counts: [...point.counts] },
    count: point.count,
  };
}

function resetSum(point: SumPoint, now: HrTime): void {
  point.value = 0;
  point.startTime = now;
}
