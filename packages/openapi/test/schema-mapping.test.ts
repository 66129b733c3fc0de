import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerToken, OpenApiClient } from '@armature/openapi';
import { createTestingApp, type TestingApp } from '@armature/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KitchenSinkApi } from './generated/kitchen-sink/kitchen-sink.api.js';
import { KitchenSinkServer } from './generated/kitchen-sink/kitchen-sink.server.js';

// The tools generated from fixtures/kitchen.yaml (OpenAPI 3.1: type lists with null, inline
// objects, arrays of references, enums and numbers, formats, a pattern, a header, a query
// parameter called body): they start, advertise the document's constraints, refuse what breaks
// them, and send what keeps them.

const seen: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];
let api: Server;
let t: TestingApp;

beforeAll(async () => {
  api = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((done) => api.listen(0, '127.0.0.1', done));
  const baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  t = await createTestingApp({ servers: [KitchenSinkServer] })
    .overrideProvider(KitchenSinkApi)
    .useValue(new OpenApiClient({ baseUrl, credentials: bearerToken('service-token') }))
    .compile();
});

afterAll(async () => {
  await t?.close();
  api.closeAllConnections();
  await new Promise((done) => api.close(done));
});

afterEach(() => {
  seen.length = 0;
});

const SKU = '3f6c1c4e-8a4b-4c39-9a0e-0b8e5d7f2a11';

describe('the kitchen-sink tools', () => {
  it('advertise the constraints of the document', async () => {
    const [tool] = await t.listTools();
    expect(tool?.inputSchema).toMatchObject({
      required: ['orderId', 'requestBody'],
      properties: {
        orderId: {
          type: 'string',
          pattern: '^ord-[0-9]+$',
          description: 'Order id: the orderId path parameter of postOrdersOrderIdLines.',
        },
        body: { type: 'boolean' },
        // A parameter's default is the DTO field's: advertised, and the argument optional.
        limit: { type: 'integer', minimum: 1, default: 20, description: 'How many lines to answer with.' },
        sort: { enum: ['asc', 'desc'], default: 'asc' },
        xTrace: { type: 'string' },
      },
      $defs: {
        Item: { required: ['sku'], properties: { sku: { type: 'string', format: 'uuid' }, count: { type: 'integer', minimum: 1 } } },
        PostOrdersOrderIdLinesRequestBody: {
          required: ['items', 'priority'],
          properties: {
            items: { type: 'array', minItems: 1, maxItems: 3 },
            priority: { enum: ['low', 'high'] },
            note: { type: 'string', maxLength: 20 },
            'x-rate': { type: 'number', maximum: 5 },
            gift: { type: 'boolean', default: false, description: 'Whether to wrap the lines.' },
            tags: { type: 'array', items: { type: 'string' }, default: ['new'] },
          },
        },
      },
    });
  });

  it('describe every argument, nested ones too, where the document describes few (what armature inspect checks)', async () => {
    const [tool] = await t.listTools();
    const undescribed: string[] = [];
    const visit = (schema: Record<string, unknown>, path: string) => {
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        if (typeof property.$ref !== 'string' && !String(property.description ?? '').trim()) undescribed.push(`${path}${name}`);
      }
    };
    visit(tool?.inputSchema as Record<string, unknown>, '');
    for (const [name, definition] of Object.entries((tool?.inputSchema.$defs ?? {}) as Record<string, Record<string, unknown>>)) {
      visit(definition, `${name}.`);
    }
    expect(undescribed).toEqual([]);
  });

  it('send path, query, header and body as the document names them', async () => {
    const requestBody = {
      items: [{ sku: SKU, count: 2 }],
      labels: ['gift'],
      weights: [0.5],
      priority: 'high',
      address: { city: 'Oslo' },
      extra: { wrap: true },
      'x-rate': 4.5,
      either: 3,
    };
    const result = await t.callTool('postOrdersOrderIdLines', { orderId: 'ord-12', body: true, xTrace: 'tr-1', requestBody });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(result.structuredContent).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    // The defaults of the arguments left out are sent, as the API would apply them.
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/orders/ord-12/lines?body=true&limit=20&sort=asc' });
    expect(seen[0]?.headers['x-trace']).toBe('tr-1');
    expect(seen[0]?.headers.authorization).toBe('Bearer service-token');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ ...requestBody, gift: false, tags: ['new'] });
  });

  it('send a default only when the caller leaves the argument out', async () => {
    const requestBody = { items: [{ sku: SKU }], priority: 'low', gift: true, tags: [] };
    const result = await t.callTool('postOrdersOrderIdLines', { orderId: 'ord-1', limit: 5, sort: 'desc', requestBody });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(seen[0]?.url).toBe('/orders/ord-1/lines?limit=5&sort=desc');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual(requestBody);
  });

  it('refuse every broken constraint, naming each, before the HTTP call', async () => {
    const refused = await t.callTool('postOrdersOrderIdLines', {
      orderId: 'order-12',
      requestBody: {
        items: [{ sku: 'not-a-uuid', count: 0 }],
        labels: ['fragile', 'glass'],
        weights: [-1],
        priority: 'urgent',
        note: 'x'.repeat(21),
        address: { city: 'O' },
        'x-rate': 6,
      },
    });
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([
      {
        type: 'text',
        text: [
          'Invalid arguments for tool "postOrdersOrderIdLines":',
          'orderId: must match /^ord-[0-9]+$/ regular expression',
          'requestBody.items.0.sku: must be a UUID',
          'requestBody.items.0.count: must not be less than 1',
          'requestBody.labels: each value must be one of the following values: fragile, gift',
          'requestBody.weights: each value must not be less than 0',
          'requestBody.priority: must be one of the following values: low, high',
          'requestBody.note: must be shorter than or equal to 20 characters',
          'requestBody.address.city: must be longer than or equal to 2 characters',
          'requestBody.x-rate: must not be greater than 5',
        ].join('\n'),
      },
    ]);
    expect(seen).toEqual([]);
  });
});
