import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createMcpApp, TypediContainerAdapter } from '@armature/core';
import { apiKeyHeader, OpenApiClient } from '@armature/openapi';
import { loadOpenApiDocument, renderOpenApiTools } from '@armature/openapi/generate';
import { ContainerInstance } from 'typedi';
import { PetstoreApi } from './openapi/petstore/petstore.api.js';
import { PetstoreServer } from './openapi/petstore/petstore.server.js';
import { connectInMemory, expectEqual, json } from './support/check.js';

export const outputs: Record<string, string> = {
  refused: `{
  "content": [{ "type": "text", "text": "Invalid arguments for tool \\"createPet\\":\\nbody.name: must be longer than or equal to 1 characters" }],
  "isError": true
}`,
  'http-error': `{
  "content": [{ "type": "text", "text": "showPetById (GET /pets/{petId}) answered HTTP 404 Not Found: {\\"message\\":\\"no pet 404\\"}" }],
  "structuredContent": { "status": 404, "body": "{\\"message\\":\\"no pet 404\\"}" },
  "isError": true
}`,
};

/** A Petstore on 127.0.0.1 for the example to call; it records what it is sent. */
async function startPetstore() {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} key=${req.headers['x-api-key']}${body ? ` ${body}` : ''}`);
      const [status, answer] =
        req.method === 'POST'
          ? [201, { id: 7, ...JSON.parse(body) }]
          : req.url === '/v1/pets/404'
            ? [404, { message: 'no pet 404' }]
            : [200, req.url?.startsWith('/v1/pets/') ? { id: 7, name: 'Rex' } : [{ id: 7, name: 'Rex' }]];
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((done) => server.close(done));
    },
  };
}

// #region configure
/** The Petstore tools calling `baseUrl` with a fixed API key: for a test, or to set the client in code. */
export function petstoreApp(baseUrl: string) {
  const api = new OpenApiClient({ baseUrl, credentials: apiKeyHeader('X-Api-Key', 'demo-key') });
  const container = new TypediContainerAdapter(new ContainerInstance('openapi-docs')).override(PetstoreApi, api);
  return createMcpApp(PetstoreServer, { container });
}
// #endregion

export async function main(): Promise<void> {
  // The files shown in the guide are what the generator writes for petstore.yaml --tags pets.
  const document = await loadOpenApiDocument(fileURLToPath(new URL('./openapi/petstore.yaml', import.meta.url)));
  const rendered = renderOpenApiTools(document, { source: 'petstore.yaml', tags: ['pets'] });
  for (const file of rendered.files) {
    expectEqual(file.content, readFileSync(new URL(`./openapi/${file.path}`, import.meta.url), 'utf8'), `generated ${file.path}`);
  }

  const petstore = await startPetstore();
  try {
    const app = petstoreApp(petstore.url);
    const { client, close } = await connectInMemory(app);
    try {
      const tools = await client.listTools();
      expectEqual(
        tools.tools.map((tool) => tool.name),
        ['listPets', 'createPet', 'showPetById'],
        'tools',
      );
      const created = await client.callTool({ name: 'createPet', arguments: { body: { name: 'Rex', tag: 'dog' } } });
      expectEqual(created.structuredContent, { id: 7, name: 'Rex', tag: 'dog' }, 'created pet');
      const list = await client.callTool({ name: 'listPets', arguments: { limit: 5 } });
      expectEqual(list.content, [{ type: 'text', text: '[{"id":7,"name":"Rex"}]' }], 'list');
      const refused = await client.callTool({ name: 'createPet', arguments: { body: { name: '' } } });
      expectEqual(json(refused), JSON.parse(outputs.refused as string), 'refused');
      const missing = await client.callTool({ name: 'showPetById', arguments: { petId: 404 } });
      expectEqual(json(missing), JSON.parse(outputs['http-error'] as string), 'HTTP error');
      expectEqual(
        petstore.seen,
        ['POST /v1/pets key=demo-key {"name":"Rex","tag":"dog"}', 'GET /v1/pets?limit=5 key=demo-key', 'GET /v1/pets/404 key=demo-key'],
        'requests the API got (none for the refused call)',
      );
    } finally {
      await close();
    }
  } finally {
    await petstore.close();
  }
}
