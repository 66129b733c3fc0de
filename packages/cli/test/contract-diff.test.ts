import { describe, expect, it } from 'vitest';
import { diffContracts, formatContractChanges } from '../src/inspect/contract-diff.js';
import { contractOf, formatContract } from '../src/inspect/contract-snapshot.js';
import type { Catalogue } from '../src/inspect/load-catalogue.js';

type Json = Record<string, unknown>;

/** A small catalogue; each test edits a copy of it and diffs the two contracts. */
function base(): Catalogue {
  return {
    server: { name: 'weather', version: '1.0.0' },
    tools: [
      {
        name: 'get_forecast',
        description: 'Forecast for a city',
        annotations: { readOnlyHint: true },
        inputSchema: {
          type: 'object',
          properties: {
            city: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z ]+$' },
            days: { type: 'integer', minimum: 1, maximum: 14 },
            units: { type: 'string', enum: ['metric', 'imperial'] },
            place: { $ref: '#/$defs/Place' },
            tags: { type: 'array', items: { type: 'string' }, minItems: 0, maxItems: 5 },
          },
          required: ['city'],
          additionalProperties: false,
          $defs: { Place: { type: 'object', properties: { lat: { type: 'number' } }, required: ['lat'] } },
        },
        outputSchema: {
          type: 'object',
          properties: { city: { type: 'string' }, tempC: { type: 'number' }, note: { type: 'string' } },
          required: ['city', 'tempC'],
        },
      },
      { name: 'ping', inputSchema: { type: 'object', properties: {} } },
    ],
    resources: [{ uri: 'weather://stations', name: 'stations', mimeType: 'application/json' }],
    resourceTemplates: [{ uriTemplate: 'weather://city/{name}', name: 'city' }],
    prompts: [{ name: 'summarize', arguments: [{ name: 'city', required: true }, { name: 'style' }] }],
  };
}

const forecast = (c: Catalogue) => c.tools[0] as Json & { inputSchema: Json; outputSchema: Json };
const inputProp = (c: Catalogue, name: string) => (forecast(c).inputSchema.properties as Record<string, Json>)[name] as Json;
const outputSchema = (c: Catalogue) => forecast(c).outputSchema as Json & { properties: Record<string, Json>; required: string[] };

function changesAfter(edit: (c: Catalogue) => void): string[] {
  const after = base();
  edit(after);
  return diffContracts(contractOf(base()), contractOf(after)).map((c) => `${c.severity}: ${c.subject}: ${c.text}`);
}

describe('diffContracts: breaking changes', () => {
  const cases: [string, (c: Catalogue) => void, string][] = [
    ['a removed tool', (c) => c.tools.splice(1, 1), 'breaking: tool ping: removed'],
    [
      'a new required argument',
      (c) => {
        (forecast(c).inputSchema.properties as Json).country = { type: 'string' };
        (forecast(c).inputSchema.required as string[]).push('country');
      },
      'breaking: tool get_forecast: new required argument country',
    ],
    [
      'an optional argument made required',
      (c) => (forecast(c).inputSchema.required as string[]).push('days'),
      'breaking: tool get_forecast: argument days is now required',
    ],
    [
      'a narrowed type',
      (c) => {
        ((forecast(c).inputSchema.$defs as Json).Place as { properties: Json }).properties.lat = { type: 'integer' };
      },
      'breaking: tool get_forecast: argument place.lat: type narrowed from "number" to "integer"',
    ],
    [
      'a minimum raised',
      (c) => {
        inputProp(c, 'days').minimum = 2;
      },
      'breaking: tool get_forecast: argument days: minimum narrowed from 1 to 2',
    ],
    [
      'a maximum lowered',
      (c) => {
        inputProp(c, 'days').maximum = 7;
      },
      'breaking: tool get_forecast: argument days: maximum narrowed from 14 to 7',
    ],
    [
      'a minLength raised',
      (c) => {
        inputProp(c, 'city').minLength = 2;
      },
      'breaking: tool get_forecast: argument city: minLength narrowed from 1 to 2',
    ],
    [
      'a maxLength lowered',
      (c) => {
        inputProp(c, 'city').maxLength = 32;
      },
      'breaking: tool get_forecast: argument city: maxLength narrowed from 64 to 32',
    ],
    [
      'a minItems raised',
      (c) => {
        inputProp(c, 'tags').minItems = 1;
      },
      'breaking: tool get_forecast: argument tags: minItems narrowed from 0 to 1',
    ],
    [
      'a maxItems lowered',
      (c) => {
        inputProp(c, 'tags').maxItems = 3;
      },
      'breaking: tool get_forecast: argument tags: maxItems narrowed from 5 to 3',
    ],
    [
      'a changed pattern',
      (c) => {
        inputProp(c, 'city').pattern = '^[A-Z]+$';
      },
      'breaking: tool get_forecast: argument city: pattern changed from "^[A-Za-z ]+$" to "^[A-Z]+$"',
    ],
    [
      'a removed enum value',
      (c) => {
        inputProp(c, 'units').enum = ['metric'];
      },
      'breaking: tool get_forecast: argument units: enum value(s) "imperial" removed',
    ],
    [
      'a removed output field',
      (c) => {
        delete outputSchema(c).properties.tempC;
        outputSchema(c).required = ['city'];
      },
      'breaking: tool get_forecast: output field tempC removed',
    ],
    [
      'an output field no longer always present',
      (c) => {
        outputSchema(c).required = ['city'];
      },
      'breaking: tool get_forecast: output field tempC is no longer always present',
    ],
    [
      'a removed output schema',
      (c) => {
        delete (c.tools[0] as Json).outputSchema;
      },
      'breaking: tool get_forecast: output schema removed (structured output is no longer promised)',
    ],
    [
      'a lost read-only promise',
      (c) => {
        forecast(c).annotations = { readOnlyHint: false };
      },
      'breaking: tool get_forecast: annotation readOnlyHint changed from true to false',
    ],
    ['a removed prompt', (c) => c.prompts.splice(0, 1), 'breaking: prompt summarize: removed'],
    ['a removed resource', (c) => c.resources.splice(0, 1), 'breaking: resource weather://stations: removed'],
  ];

  it.each(cases)('%s', (_name, edit, expected) => {
    expect(changesAfter(edit)).toEqual([expected]);
  });
});

describe('diffContracts: compatible changes', () => {
  const cases: [string, (c: Catalogue) => void, string][] = [
    ['a new tool', (c) => c.tools.push({ name: 'alerts', inputSchema: { type: 'object' } }), 'compatible: tool alerts: new'],
    [
      'a new optional argument',
      (c) => {
        (forecast(c).inputSchema.properties as Json).lang = { type: 'string' };
      },
      'compatible: tool get_forecast: new optional argument lang',
    ],
    [
      'a widened type',
      (c) => {
        inputProp(c, 'days').type = 'number';
      },
      'compatible: tool get_forecast: argument days: type widened from "integer" to "number"',
    ],
    [
      'a widened bound',
      (c) => {
        inputProp(c, 'days').maximum = 30;
      },
      'compatible: tool get_forecast: argument days: maximum widened from 14 to 30',
    ],
    [
      'a removed maxLength',
      (c) => {
        delete inputProp(c, 'city').maxLength;
      },
      'compatible: tool get_forecast: argument city: maxLength widened from 64 to none',
    ],
    [
      'an added enum value',
      (c) => {
        inputProp(c, 'units').enum = ['metric', 'imperial', 'kelvin'];
      },
      'compatible: tool get_forecast: argument units: enum value(s) "kelvin" added',
    ],
    [
      'an added output field',
      (c) => {
        outputSchema(c).properties.humidity = { type: 'number' };
      },
      'compatible: tool get_forecast: new output field humidity',
    ],
    [
      'a new optional prompt argument',
      (c) => (c.prompts[0] as { arguments: Json[] }).arguments.push({ name: 'lang' }),
      'compatible: prompt summarize: new optional argument lang',
    ],
    [
      'a new resource template',
      (c) => c.resourceTemplates.push({ uriTemplate: 'weather://alerts/{region}', name: 'alerts' }),
      'compatible: resource template weather://alerts/{region}: new',
    ],
  ];

  it.each(cases)('%s', (_name, edit, expected) => {
    expect(changesAfter(edit)).toEqual([expected]);
  });

  it('finds nothing when only descriptions change', () => {
    expect(
      changesAfter((c) => {
        forecast(c).description = 'Reworded';
      }),
    ).toEqual([]);
  });
});

describe('the snapshot and the report', () => {
  it('writes the same text whatever the key order', () => {
    const reordered = base();
    const tool = forecast(reordered);
    reordered.tools[0] = Object.fromEntries(Object.entries(tool).reverse());
    expect(formatContract(contractOf(reordered))).toBe(formatContract(contractOf(base())));
    expect(formatContract(contractOf(base()))).not.toContain('Forecast for a city');
  });

  it('prints one line per change, breaking first, then the verdict', () => {
    const after = base();
    after.tools.push({ name: 'alerts', inputSchema: { type: 'object' } });
    inputProp(after, 'days').maximum = 7;
    const text = formatContractChanges('mcp-contract.json', diffContracts(contractOf(base()), contractOf(after)));
    expect(text.split('\n')).toEqual([
      'breaking    tool get_forecast: argument days: maximum narrowed from 14 to 7',
      'compatible  tool alerts: new',
      expect.stringMatching(/^armature inspect --check mcp-contract\.json: 1 breaking change\(s\), 1 compatible\. /),
      '',
    ]);
  });
});
