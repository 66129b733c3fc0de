import { describe, expect, it } from 'vitest';
import { formatCatalogue } from '../src/inspect/format-catalogue.js';
import { lintCatalogue, RULES } from '../src/inspect/lint-catalogue.js';
import type { Catalogue } from '../src/inspect/load-catalogue.js';

const GOOD_TOOL = {
  name: 'get_forecast',
  description: 'Forecast for a city, for the next days. Use it for weather questions.',
  annotations: { readOnlyHint: true },
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string', minLength: 1, maxLength: 64, description: 'City name' },
      days: { type: 'integer', minimum: 1, maximum: 14, default: 3, description: 'Days ahead' },
    },
    required: ['city'],
    additionalProperties: false,
  },
};

const catalogue = (patch: Partial<Catalogue> = {}): Catalogue => ({
  server: { name: 'weather', version: '1.0.0' },
  tools: [GOOD_TOOL],
  resources: [],
  resourceTemplates: [],
  prompts: [],
  ...patch,
});

describe('lintCatalogue', () => {
  it('finds nothing in a well-described catalogue', () => {
    expect(lintCatalogue(catalogue())).toEqual([]);
  });

  it('flags each rule with where and what', () => {
    const findings = lintCatalogue(
      catalogue({
        tools: [
          GOOD_TOOL,
          {
            name: 'book.flight',
            description: 'Books',
            inputSchema: {
              type: 'object',
              properties: {
                when: { type: 'string', format: 'duration' },
                code: { type: 'string', pattern: '^(?!XX)[A-Z]{2}$', description: 'Airline' },
                tags: { type: 'array', items: {}, description: 'Tags' },
                seat: { $ref: '#/$defs/Seat' },
                either: { anyOf: [{ type: 'string' }, { type: 'number' }], description: 'Either' },
              },
              $defs: { Seat: { type: 'object', properties: { row: { type: 'integer' } } } },
            },
          },
          {
            name: 'cancelFlight',
            description: 'TODO: say what it does',
            annotations: { readOnlyHint: false },
            inputSchema: { type: 'object' },
          },
        ],
        resources: [{ uri: 'weather://stations', name: 'stations' }],
        prompts: [{ name: 'summarise', description: 'Summarise', arguments: [{ name: 'text', required: true }] }],
      }),
    );
    expect(findings.map((f) => `${f.rule} | ${f.where}`)).toEqual([
      'tool-description | tool book.flight',
      'tool-name | tool book.flight',
      'read-only-hint | tool book.flight',
      'schema-ref | tool book.flight',
      'field-description | tool book.flight, argument when',
      'schema-format | tool book.flight, argument when',
      'schema-pattern | tool book.flight, argument code',
      'schema-array-items | tool book.flight, argument tags',
      'schema-composition | tool book.flight, argument either',
      'field-description | tool book.flight, argument Seat.row',
      'tool-description | tool cancelFlight',
      'tool-name | tools',
      'missing-description | resource weather://stations',
      'field-description | prompt summarise, argument text',
    ]);
    expect(findings.find((f) => f.rule === 'tool-name' && f.where === 'tools')?.message).toBe(
      'the names mix styles (snake_case: get_forecast; camelCase: cancelFlight); one style helps the model',
    );
    for (const finding of findings) expect(Object.keys(RULES)).toContain(finding.rule);
  });
});

describe('formatCatalogue', () => {
  const c = catalogue({
    resources: [{ uri: 'weather://stations', name: 'stations', mimeType: 'application/json', description: 'Weather stations' }],
    prompts: [
      { name: 'summarise', description: 'Summarise a forecast', arguments: [{ name: 'text', required: true, description: 'Forecast' }] },
    ],
  });

  it('prints text', () => {
    expect(formatCatalogue('text', c, [])).toBe(`weather 1.0.0: 1 tool, 1 resource, 0 resource templates, 1 prompt

Tools
  get_forecast  [read-only]
    Forecast for a city, for the next days. Use it for weather questions.
    input:
      city: string, 1..64 chars, required. City name
      days: integer, 1..14, default 3, optional. Days ahead

Resources
  weather://stations  (stations, application/json)
    Weather stations

Prompts
  summarise
    Summarise a forecast
      text: required. Forecast

Lint: no findings
`);
  });

  it('prints JSON with the findings', () => {
    const findings = [{ rule: 'read-only-hint', where: 'tool x', message: 'm' }];
    expect(JSON.parse(formatCatalogue('json', c, findings))).toEqual({ ...c, findings });
  });

  it('prints Markdown with argument tables and the schemas', () => {
    const md = formatCatalogue('markdown', c, []);
    expect(md).toContain('### `get_forecast`');
    expect(md).toContain('| `city` | string | yes | City name |');
    expect(md).toContain('<details><summary>Input schema</summary>');
    expect(md).toContain('| `weather://stations` | stations | application/json | Weather stations |');
    expect(md).toContain('| `text` | yes | Forecast |');
    expect(md.trimEnd().endsWith('No findings.')).toBe(true);
  });
});
