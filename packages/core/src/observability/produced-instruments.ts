import type { Attributes } from '@opentelemetry/api';

/** An OpenTelemetry time: seconds and nanoseconds since the epoch (the SDK's `HrTime`). */
export type HrTime = [number, number];

/** Now, as the SDK's `hrTime()` reads it (the performance clock from its origin). */
export function hrNow(): HrTime {
  const ms = performance.timeOrigin + performance.now();
  const seconds = Math.trunc(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** The attributes the SDK records a measurement against once an instrument holds its limit of series. */
const OVERFLOW: Attributes = Object.freeze({ 'otel.metric.overflow': true });
/** The SDK's default cardinality limit per instrument, the overflow series included. */
const SERIES_LIMIT = 2000;

/** The SDK's key of an attribute set: its entries sorted by key, as JSON. */
function keyOf(attributes: Attributes): string {
  const keys = Object.keys(attributes);
  if (keys.length === 0) return '';
  return JSON.stringify(keys.sort().map((key) => [key, attributes[key]]));
}

/** One series of an instrument: what it aggregated since `startTime`, and how many measurements since the last collection. */
export interface Point {
  readonly attributes: Attributes;
  startTime: HrTime;
  /** Measurements since the last collection (a delta reader reports only the series that had some). */
  fresh: number;
}

/**
 * An instrument's series, found by attribute set: a frozen set (Armature's sets are made once and
 * reused) by its identity, with no work; another by the SDK's key (built from its entries), as the
 * SDK finds every set. Past the SDK's limit of series, measurements go to its overflow series.
 */
export class SeriesTable<P extends Point> {
  private readonly byIdentity = new WeakMap<Attributes, P>();
  private readonly byKey = new Map<string, P>();

  constructor(private readonly make: (attributes: Attributes) => P) {}

  of(attributes: Attributes): P {
    const known = this.byIdentity.get(attributes);
    if (known) return known;
    const key = keyOf(attributes);
    let point = this.byKey.get(key);
    if (!point) {
      if (this.byKey.size >= SERIES_LIMIT - 1 && attributes !== OVERFLOW) return this.of(OVERFLOW);
      point = this.make(attributes === OVERFLOW ? OVERFLOW : Object.freeze({ ...attributes }));
      this.byKey.set(key, point);
    }
    if (Object.isFrozen(attributes)) this.byIdentity.set(attributes, point);
    return point;
  }

  points(): IterableIterator<P> {
    return this.byKey.values();
  }
}

/** An explicit-bucket histogram series: counts per bucket, sum, count, min and max. */
export interface HistogramPoint extends Point {
  counts: number[];
  sum: number;
  count: number;
  min: number;
  max: number;
}

/** A histogram recorded in place: a measurement finds its series and bumps its bucket, allocating nothing. */
export class ProducedHistogram {
  readonly series: SeriesTable<HistogramPoint>;

  constructor(readonly boundaries: readonly number[]) {
    this.series = new SeriesTable((attributes) => emptyHistogram(attributes, boundaries.length + 1, hrNow()));
  }

  /** As the SDK's histogram: a negative or NaN value is dropped; a value equal to a boundary falls in the bucket it closes. */
  record(value: number, attributes: Attributes = {}): void {
    if (!(value >= 0)) return;
    const point = this.series.of(attributes);
    const boundaries = this.boundaries;
    let bucket = 0;
    while (bucket < boundaries.length && (boundaries[bucket] as number) < value) bucket++;
    (point.counts[bucket] as number)++;
    point.count++;
    point.sum += value;
    if (value < point.min) point.min = value;
    if (value > point.max) point.max = value;
    point.fresh++;
  }
}

export function emptyHistogram(attributes: Attributes, buckets: number, startTime: HrTime): HistogramPoint {
  return { attributes, startTime, fresh: 0, counts: new Array<number>(buckets).fill(0), sum: 0, count: 0, min: Infinity, max: -Infinity };
}

/** A counter's or up-down counter's series: its sum. */
export interface SumPoint extends Point {
  value: number;
}

/** A counter (`monotonic`: negative values dropped, as the SDK drops them) or up-down counter, added to in place. */
export class ProducedSum {
  readonly series = new SeriesTable<SumPoint>((attributes) => ({ attributes, startTime: hrNow(), fresh: 0, value: 0 }));

  constructor(readonly monotonic: boolean) {}

  add(value: number, attributes: Attributes = {}): void {
    if (Number.isNaN(value) || (this.monotonic && value < 0)) return;
    const point = this.series.of(attributes);
    point.value += value;
    point.fresh++;
  }
}
