import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpApp, InvalidTokenError, TypediContainerAdapter } from '@armature/core';
import { apiKeyHeader, callerBearerToken, OpenApiClient } from '@armature/openapi';
import { createTestingApp, type TestingApp } from '@armature/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ContainerInstance } from 'typedi';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PetstoreApi } from './generated/petstore/petstore.api.js';
import { PetstoreServer } from './generated/petstore/petstore.server.js';

// The tools generated from fixtures/petstore.yaml (test/generated, checked by generate.test.ts),
// served by Armature and called with the official SDK client in memory, against a Petstore on
// 127.0.0.1 that records each request it gets.

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let api: Server;
let baseUrl: string;
const seen: Seen[] = [];
const hanging = new Set<IncomingMessage>();
let closedHanging = 0;

function answer(req: IncomingMessage, body: string): { status: number; json?: unknown } | 'hang' {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (req.method === 'GET' && path === '/v1/pets') return { status: 200, json: [{ id: 1, name: 'Rex' }] };
  if (req.method === 'POST' && path === '/v1/pets') return { status: 201, json: { id: 2, ...JSON.parse(body) } };
  if (req.method === 'GET' && path === '/v1/pets/404') return { status: 404, json: { code: 404, message: 'no pet 404' } };
  if (req.method === 'GET' && path.startsWith('/v1/pets/')) return { status: 200, json: { id: Number(path.slice(9)), name: 'Rex' } };
  if (req.method === 'DELETE' && path.startsWith('/v1/pets/')) return { status: 204 };
  if (req.method === 'GET' && path === '/v1/store/inventory') return 'hang';
  return { status: 500, json: { message: 'unexpected route' } };
}

beforeAll(async () => {
  api = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const reply = answer(req, body);
      if (reply === 'hang') {
        hanging.add(req);
        res.on('close', () => {
          closedHanging++;
          hanging.delete(req);
        });
        return;
      }
      res.writeHead(reply.status, reply.json === undefined ? {} : { 'content-type': 'application/json' });
      res.end(reply.json === undefined ? undefined : JSON.stringify(reply.json));
    });
  });
  await new Promise<void>((done) => api.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  api.closeAllConnections();
  await new Promise((done) => api.close(done));
});

afterEach(() => {
  seen.length = 0;
});

describe('tools generated from the Petstore document', () => {
  let t: TestingApp;

  beforeAll(async () => {
    t = await createTestingApp({ servers: [PetstoreServer] })
      .overrideProvider(PetstoreApi)
      .useValue(new OpenApiClient({ baseUrl, credentials: apiKeyHeader('X-Api-Key', 'key-1'), timeoutMs: 60_000 }))
      .compile();
  });

  afterAll(() => t?.close());

  it('advertises one tool per JSON operation, with the schemas of the document', async () => {
    const tools = await t.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['listPets', 'createPet', 'showPetById', 'deletePet', 'getInventory']);
    const create = tools.find((tool) => tool.name === 'createPet');
    expect(create?.inputSchema).toMatchObject({
      type: 'object',
      required: ['body'],
      properties: { body: { $ref: '#/$defs/NewPet', description: 'The pet to add.' } },
      $defs: {
        NewPet: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 50, description: "The pet's name." },
            status: { enum: ['available', 'pending', 'sold'] },
            owner: { $ref: '#/$defs/Owner' },
          },
        },
        Owner: { required: ['email'] },
      },
    });
    const list = tools.find((tool) => tool.name === 'listPets');
    expect(list?.inputSchema.properties).toMatchObject({
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      tag: { type: 'array', items: { type: 'string' } },
    });
    expect(list?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true, openWorldHint: true });
  });

  it('sends path, query and header parameters with the configured credentials', async () => {
    const list = await t.callTool('listPets', { limit: 5, tag: ['dog', 'cat'] });
    expect(list.isError).toBeFalsy();
    expect(list.content).toEqual([{ type: 'text', text: '[{"id":1,"name":"Rex"}]' }]);
    expect(list.structuredContent).toBeUndefined();

    const show = await t.callTool('showPetById', { petId: 7, xRequestId: 'req-7' });
    expect(show.structuredContent).toEqual({ id: 7, name: 'Rex' });

    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual(['GET /v1/pets?limit=5&tag=dog&tag=cat', 'GET /v1/pets/7']);
    expect(seen[0]?.headers['x-api-key']).toBe('key-1');
    expect(seen[0]?.headers.accept).toBe('application/json');
    expect(seen[1]?.headers['x-request-id']).toBe('req-7');
  });

  it('sends the body as JSON and answers with the created object as structured content', async () => {
    const body = { name: 'Rex', status: 'available', owner: { email: 'ann@example.com' } };
    const created = await t.callTool('createPet', { body });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toEqual({ id: 2, ...body });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/pets' });
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual(body);
  });

  it('refuses bad arguments with the schema messages before any HTTP call', async () => {
    const badBody = await t.callTool('createPet', { body: { name: '', owner: { email: 'not-an-email' } } });
    expect(badBody.isError).toBe(true);
    expect(badBody.content).toEqual([
      {
        type: 'text',
        text: 'Invalid arguments for tool "createPet":\nbody.name: must be longer than or equal to 1 characters\nbody.owner.email: must be an email',
      },
    ]);
    const badLimit = await t.callTool('listPets', { limit: 0 });
    expect(badLimit.content).toEqual([{ type: 'text', text: 'Invalid arguments for tool "listPets":\nlimit: must not be less than 1' }]);
    const missing = await t.callTool('deletePet', {});
    expect(missing.isError).toBe(true);
    expect(seen).toEqual([]);
  });

  it('answers an HTTP error as a tool error with its status and body', async () => {
    const missing = await t.callTool('showPetById', { petId: 404 });
    expect(missing.isError).toBe(true);
    expect(missing.content).toEqual([
      { type: 'text', text: 'showPetById (GET /pets/{petId}) answered HTTP 404 Not Found: {"code":404,"message":"no pet 404"}' },
    ]);
    expect(missing.structuredContent).toEqual({ status: 404, body: '{"code":404,"message":"no pet 404"}' });
  });

  it('answers an empty success with its status', async () => {
    const deleted = await t.callTool('deletePet', { petId: 3 });
    expect(deleted.content).toEqual([{ type: 'text', text: 'HTTP 204 No Content' }]);
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual(['DELETE /v1/pets/3']);
  });

  it('aborts the HTTP call when the MCP call is cancelled', async () => {
    const before = closedHanging;
    const cancel = new AbortController();
    const call = t.callTool('getInventory', {}, { signal: cancel.signal });
    await expect.poll(() => hanging.size, { timeout: 20_000 }).toBe(1);
    cancel.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await expect.poll(() => closedHanging, { timeout: 20_000 }).toBe(before + 1);
  });
});

describe('the client options', () => {
  it('fails a call the API does not answer in timeoutMs, and closes it', async () => {
    const before = closedHanging;
    const t = await createTestingApp({ servers: [PetstoreServer] })
      .overrideProvider(PetstoreApi)
      .useValue(new OpenApiClient({ baseUrl, timeoutMs: 50 }))
      .compile();
    try {
      const late = await t.callTool('getInventory', {});
      expect(late.content).toEqual([
        {
          type: 'text',
          text: "getInventory (GET /store/inventory) did not answer within 50 ms. Try again later, or raise timeoutMs of the API's OpenApiClient.",
        },
      ]);
      await expect.poll(() => closedHanging, { timeout: 20_000 }).toBe(before + 1);
    } finally {
      await t.close();
    }
  });

  it('fails a call whose answer passes maxResponseBytes (21 bytes pass, 23 do not)', async () => {
    const t = await createTestingApp({ servers: [PetstoreServer] })
      .overrideProvider(PetstoreApi)
      .useValue(new OpenApiClient({ baseUrl, maxResponseBytes: 22 }))
      .compile();
    try {
      const small = await t.callTool('showPetById', { petId: 1 });
      expect(small.structuredContent).toEqual({ id: 1, name: 'Rex' });
      const big = await t.callTool('listPets', {});
      expect(big.content).toEqual([
        {
          type: 'text',
          text: "listPets (GET /pets) answered more than 22 bytes. Ask for less (a smaller page, a filter), or raise maxResponseBytes of the API's OpenApiClient.",
        },
      ]);
    } finally {
      await t.close();
    }
  });

  it("the generated client sends the document's API key scheme, with the key and base URL from the environment", async () => {
    process.env.PETSTORE_API_URL = baseUrl;
    process.env.PETSTORE_API_KEY = 'key-from-env';
    const t = await createTestingApp({ servers: [PetstoreServer] }).compile();
    try {
      const pet = await t.callTool('showPetById', { petId: 1 });
      expect(pet.structuredContent).toEqual({ id: 1, name: 'Rex' });
      expect(seen.map(({ url, headers }) => [url, headers['x-api-key']])).toEqual([['/v1/pets/1', 'key-from-env']]);
    } finally {
      delete process.env.PETSTORE_API_URL;
      delete process.env.PETSTORE_API_KEY;
      await t.close();
    }
  });

  it('callerBearerToken refuses a call without an authenticated caller before the HTTP call', async () => {
    const t = await createTestingApp({ servers: [PetstoreServer] })
      .overrideProvider(PetstoreApi)
      .useValue(new OpenApiClient({ baseUrl, credentials: callerBearerToken(() => 'never') }))
      .compile();
    try {
      const refused = await t.callTool('showPetById', { petId: 1 });
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([
        {
          type: 'text',
          text: "showPetById (GET /pets/{petId}) calls the API as the MCP caller, and this call has no authenticated caller. Serve the app with auth (docs/auth.md), or give the API's OpenApiClient fixed credentials (apiKeyHeader, bearerToken).",
        },
      ]);
      expect(seen).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('callerBearerToken sends the token it gets for the MCP caller (Streamable HTTP with auth), never the MCP token', async () => {
    const verifier = {
      async verify(token: string) {
        if (token !== 'token-of-ada') throw new InvalidTokenError('unknown token');
        return { token, clientId: 'desk', scopes: [], extra: { sub: 'ada' } };
      },
    };
    const container = new TypediContainerAdapter(new ContainerInstance('openapi-forward')).override(
      PetstoreApi,
      new OpenApiClient({ baseUrl, credentials: callerBearerToken((principal) => `api-token-for-${String(principal.extra?.sub)}`) }),
    );
    const listener = await createMcpApp(PetstoreServer, { container }).listenHttp({
      host: '127.0.0.1',
      port: 0,
      auth: { verifier, resource: 'http://127.0.0.1/mcp', authorizationServers: ['https://auth.example.com'] },
    });
    const client = new Client({ name: 'forward', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(listener.url), { authProvider: { token: async () => 'token-of-ada' } }),
      );
      const pet = await client.callTool({ name: 'showPetById', arguments: { petId: 5 } });
      expect(pet.structuredContent).toEqual({ id: 5, name: 'Rex' });
      expect(seen.map(({ method, url, headers }) => [method, url, headers.authorization])).toEqual([
        ['GET', '/v1/pets/5', 'Bearer api-token-for-ada'],
      ]);
    } finally {
      await client.close();
      await listener.close();
    }
  });
});
