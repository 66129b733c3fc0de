import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadOpenApiDocument, renderOpenApiTools } from '@armature/openapi/generate';
import { describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/petstore.yaml', import.meta.url));
const KITCHEN = fileURLToPath(new URL('./fixtures/kitchen.yaml', import.meta.url));
// The generated Petstore tools are kept beside the tests: openapi-tools.test.ts runs them, and
// `pnpm lint` and `pnpm typecheck` read them as a user's project would. UPDATE_GOLDEN=1 rewrites them.
const GENERATED = new URL('./generated/', import.meta.url);

describe('renderOpenApiTools', () => {
  it('writes the Petstore fixture as the DTO, server and API files kept in test/generated', async () => {
    const rendered = renderOpenApiTools(await loadOpenApiDocument(FIXTURE), { source: 'petstore.yaml' });
    expect(rendered.files.map((file) => [file.path, file.userOwned])).toEqual([
      ['petstore/petstore.dto.ts', false],
      ['petstore/petstore.server.ts', false],
      ['petstore/petstore.api.ts', true],
    ]);
    for (const file of rendered.files) {
      const golden = new URL(file.path, GENERATED);
      if (process.env.UPDATE_GOLDEN) writeFileSync(golden, file.content);
      expect(file.content, file.path).toBe(readFileSync(golden, 'utf8'));
    }
    expect(rendered.tools.map((tool) => tool.toolName)).toEqual(['listPets', 'createPet', 'showPetById', 'deletePet', 'getInventory']);
    expect(rendered.warnings).toEqual([
      'placeOrder (POST /store/orders) is not generated: its request body is application/x-www-form-urlencoded, not JSON',
    ]);
  });

  it('writes the kitchen-sink fixture (3.1 types, inline objects, arrays, formats, a clash with body) as kept in test/generated', async () => {
    const rendered = renderOpenApiTools(await loadOpenApiDocument(KITCHEN), { source: 'kitchen.yaml' });
    for (const file of rendered.files) {
      const golden = new URL(file.path, GENERATED);
      if (process.env.UPDATE_GOLDEN) writeFileSync(golden, file.content);
      expect(file.content, file.path).toBe(readFileSync(golden, 'utf8'));
    }
    expect(rendered.warnings).toEqual([
      'postOrdersOrderIdLines: the optional cookie "session" is not sent',
      'postOrdersOrderIdLines.x-trace: null is not accepted (the argument is optional instead: leave it out)',
      'PostOrdersOrderIdLinesRequestBody.note: null is not accepted (the argument is optional instead: leave it out)',
      'PostOrdersOrderIdLinesRequestBody.either: oneOf/anyOf is not validated (any value is accepted and sent as given)',
    ]);
  });

  it.each([
    ['Swagger Petstore - OpenAPI 3.0', undefined, 'PetstoreServer', 'petstore/petstore.server.ts', 'PETSTORE_API_URL'],
    ['GitHub v3 REST API', 'https://api.github.com', 'GitHubServer', 'git-hub/git-hub.server.ts', 'GIT_HUB_API_URL'],
    [
      'Acme Inventory Management Service',
      undefined,
      'AcmeInventoryServer',
      'acme-inventory/acme-inventory.server.ts',
      'ACME_INVENTORY_API_URL',
    ],
    ['API', 'https://api.stripe.com/v1', 'StripeServer', 'stripe/stripe.server.ts', 'STRIPE_API_URL'],
    ['OpenAPI 3.1 (sample)', '/v3', 'ApiServer', 'api/api.server.ts', 'API_API_URL'],
  ])('names the server of "%s" (server %s) %s, short', (title, url, serverClass, serverFile, baseUrlVariable) => {
    const document = {
      openapi: '3.0.3',
      info: { title, version: '1.0.0' },
      ...(url ? { servers: [{ url }] } : {}),
      paths: { '/ping': { get: { operationId: 'ping', summary: 'Answers pong when the API is up.', responses: {} } } },
    };
    expect(renderOpenApiTools(document, { source: 'api.yaml' })).toMatchObject({ serverClass, serverFile, baseUrlVariable });
  });

  it('names the server as asked (--server)', async () => {
    const rendered = renderOpenApiTools(await loadOpenApiDocument(FIXTURE), { source: 'petstore.yaml', name: 'pet-shop' });
    expect(rendered).toMatchObject({
      serverClass: 'PetShopServer',
      serverFile: 'pet-shop/pet-shop.server.ts',
      baseUrlVariable: 'PET_SHOP_API_URL',
    });
    expect(rendered.files.find((file) => file.path === rendered.serverFile)?.content).toContain(
      "@McpServer({ name: 'pet-shop', version: '1.0.0' })",
    );
  });

  it('keeps the operations of the tags and operationIds asked for', async () => {
    const document = await loadOpenApiDocument(FIXTURE);
    const names = (tags?: string[], operations?: string[]) =>
      renderOpenApiTools(document, { source: 'petstore.yaml', tags, operations }).tools.map((tool) => tool.toolName);
    expect(names(['store'])).toEqual(['getInventory']);
    expect(names(undefined, ['showPetById', 'deletePet'])).toEqual(['showPetById', 'deletePet']);
    expect(names(['store'], ['listPets'])).toEqual(['listPets', 'getInventory']);
  });

  it('names a tag or operationId the document lacks, with the ones it has', async () => {
    const document = await loadOpenApiDocument(FIXTURE);
    expect(() => renderOpenApiTools(document, { source: 'petstore.yaml', tags: ['users'], operations: ['getPet'] })).toThrow(
      'the document has no tag "users", no operationId "getPet".\nIts tags: pets, store\n' +
        'Its operationIds: listPets, createPet, showPetById, deletePet, getInventory, placeOrder',
    );
  });

  it('reads the document from an http URL as from a file', async () => {
    const yaml = readFileSync(FIXTURE, 'utf8');
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(yaml);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.yaml`;
      const fromUrl = renderOpenApiTools(await loadOpenApiDocument(url), { source: 'petstore.yaml' });
      const fromFile = renderOpenApiTools(await loadOpenApiDocument(FIXTURE), { source: 'petstore.yaml' });
      expect(fromUrl.files).toEqual(fromFile.files);
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });

  it('refuses a document that is not valid OpenAPI 3, saying why', async () => {
    const bad = fileURLToPath(new URL('./fixtures/not-openapi.yaml', import.meta.url));
    await expect(loadOpenApiDocument(bad)).rejects.toThrow(/not-openapi\.yaml is not a valid OpenAPI document: /);
  });
});
