import { describe, expect, it } from 'vitest';
import type { SpanRecord } from '../src/agent/span-record.js';
import { parseIssues } from '../src/ui/issues.js';
import { fromLocalInput, initialValue, resolve, type Schema, setAt, toLocalInput } from '../src/ui/schema.js';
import { TERMINAL, withStatus } from '../src/ui/tasks.js';
import { newTraceParent, waterfall } from '../src/ui/traces.js';

// The page's logic without the page: reading the server's validation message, the schemas the
// forms are built from, a task's timeline and a trace's waterfall.

describe("the server's validation message, by field", () => {
  it('reads Armature\'s "Invalid arguments" text into path: messages', () => {
    const issues = parseIssues(
      'Invalid arguments for tool "quote_order":\nshipTo.country: must be a two-letter country code such as FR\nlines.0.quantity: must not be greater than 100\nlines.0.quantity: must be an integer number\nan extra line',
    );
    expect(issues?.byPath).toEqual(
      new Map([
        ['shipTo.country', ['must be a two-letter country code such as FR']],
        ['lines.0.quantity', ['must not be greater than 100', 'must be an integer number']],
      ]),
    );
    expect(issues?.general).toEqual(['an extra line']);
  });

  it("takes the SDK's prefix too, and nothing that is not a validation error", () => {
    expect(parseIssues('Input validation error: Invalid arguments for tool "x":\na: b')?.byPath.get('a')).toEqual(['b']);
    expect(parseIssues('Out of stock: TEA-001')).toBeUndefined();
    expect(parseIssues('')).toBeUndefined();
  });
});

describe('schemas for the forms', () => {
  const root: Schema = {
    type: 'object',
    properties: {
      shipTo: { $ref: '#/$defs/Address' },
      lines: { type: 'array', items: { $ref: '#/$defs/Line' } },
      currency: { enum: ['EUR', 'USD'], default: 'EUR' },
      note: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'optional' },
      extra: { type: 'object', properties: { a: { type: 'string', default: 'x' } } },
    },
    required: ['shipTo', 'lines'],
    $defs: {
      Address: {
        type: 'object',
        properties: { country: { type: 'string' }, zip: { type: 'string', default: '0000' } },
        required: ['country'],
      },
      Line: { type: 'object', properties: { sku: { type: 'string' }, quantity: { type: 'integer', default: 1 } } },
    },
  };

  it('starts from the defaults and the required objects; optional objects stay out until added', () => {
    expect(initialValue(root, root)).toEqual({ shipTo: { zip: '0000' }, lines: [], currency: 'EUR' });
    expect(initialValue({ $ref: '#/$defs/Line' }, root)).toEqual({ quantity: 1 });
  });

  it('follows $ref (and the older definitions) and unwraps a nullable union', () => {
    expect(resolve({ $ref: '#/$defs/Address' }, root).required).toEqual(['country']);
    expect(resolve({ $ref: '#/definitions/A' }, { definitions: { A: { type: 'string' } } }).type).toBe('string');
    expect(resolve({ anyOf: [{ type: 'string' }, { type: 'null' }], description: 'd' }, root)).toEqual({
      type: 'string',
      description: 'd',
    });
    // A reference to nothing is left as it is, and a cycle ends.
    expect(resolve({ $ref: '#/$defs/Missing' }, root).$ref).toBe('#/$defs/Missing');
    const cyclic: Schema = { $defs: { A: { $ref: '#/$defs/A' } } };
    expect(() => resolve({ $ref: '#/$defs/A' }, cyclic)).not.toThrow();
  });

  it('sets a value deep in the form without touching the other branches; undefined removes the key', () => {
    const before = { shipTo: { country: 'FR' }, lines: [{ sku: 'A' }] };
    const after = setAt(before, ['lines', 1, 'sku'], 'B') as typeof before;
    expect(after).toEqual({ shipTo: { country: 'FR' }, lines: [{ sku: 'A' }, { sku: 'B' }] });
    expect(after.shipTo).toBe(before.shipTo);
    expect(before.lines).toHaveLength(1);
    expect(setAt(before, ['shipTo', 'country'], undefined)).toEqual({ shipTo: {}, lines: [{ sku: 'A' }] });
  });

  it('turns a datetime-local value into an RFC 3339 date-time and back', () => {
    const iso = fromLocalInput('2026-01-31T09:00:00');
    expect(iso).toMatch(/^2026-01-3[01]T\d\d:00:00Z$/);
    expect(toLocalInput(iso)).toBe('2026-01-31T09:00:00');
    expect(fromLocalInput('')).toBeUndefined();
    expect(toLocalInput('not a date')).toBe('');
  });
});

describe("a task's timeline", () => {
  it('adds a step only when the status or its message changes, and nothing after the end', () => {
    let timeline = withStatus([], { status: 'working', statusMessage: '0/2' });
    timeline = withStatus(timeline, { status: 'working', statusMessage: '0/2' });
    timeline = withStatus(timeline, { status: 'input_required' });
    timeline = withStatus(timeline, { status: 'completed' });
    timeline = withStatus(timeline, { status: 'working' });
    expect(timeline.map((t) => [t.status, t.statusMessage])).toEqual([
      ['working', '0/2'],
      ['input_required', undefined],
      ['completed', undefined],
    ]);
    expect([...TERMINAL].sort()).toEqual(['cancelled', 'completed', 'failed']);
  });
});

describe('traces', () => {
  const span = (spanId: string, parentSpanId: string | undefined, startMs: number, endMs: number): SpanRecord => ({
    traceId: 't',
    spanId,
    parentSpanId,
    name: spanId,
    kind: 0,
    startMs,
    endMs,
    status: { code: 0 },
    attributes: {},
    events: [],
  });

  it('orders parents before children, children by start, and places the bars in time', () => {
    const rows = waterfall([
      span('validate', 'handler', 110, 120),
      span('request', 'outside', 100, 200),
      span('handler', 'request', 105, 195),
      span('guard', 'handler', 106, 108),
    ]);
    expect(rows.map((r) => [r.span.name, r.depth])).toEqual([
      ['request', 0],
      ['handler', 1],
      ['guard', 2],
      ['validate', 2],
    ]);
    expect(rows[0]).toMatchObject({ offset: 0, width: 1 });
    expect(rows[1]?.offset).toBeCloseTo(0.05);
    expect(waterfall([])).toEqual([]);
  });

  it('makes a W3C traceparent with a fresh trace id each time', () => {
    const a = newTraceParent();
    expect(a.traceparent).toMatch(new RegExp(`^00-${a.traceId}-[0-9a-f]{16}-01$`));
    expect(a.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(newTraceParent().traceId).not.toBe(a.traceId);
  });
});
