import { expect, it } from 'vitest';

// The public surface of @armature/openapi and of its /generate subpath: a change here is a change
// users see, made on purpose.
it('@armature/openapi exports the client and the credential helpers', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'OpenApiClient',
    'apiKeyHeader',
    'bearerToken',
    'forwardBearerToken',
  ]);
});

it('@armature/openapi/generate exports the loader and the renderer', async () => {
  expect(Object.keys(await import('../src/generate/index.js')).sort()).toEqual([
    'GENERATED_HEADER',
    'OpenApiDocumentError',
    'loadOpenApiDocument',
    'renderOpenApiTools',
  ]);
});
