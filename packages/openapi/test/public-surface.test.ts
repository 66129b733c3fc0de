import { expect, it } from 'vitest';

// The public surface of @armature/openapi and of its /generate subpath: a change here is a change
// users see, made on purpose.
it('@armature/openapi exports the client and the credential helpers', async () => {
  expect(Object.keys(await import('@armature/openapi')).sort()).toEqual([
    'OpenApiClient',
    'apiKeyHeader',
    'bearerToken',
    'callerBearerToken',
  ]);
});

it('@armature/openapi/generate exports the loader and the renderer', async () => {
  expect(Object.keys(await import('@armature/openapi/generate')).sort()).toEqual([
    'GENERATED_HEADER',
    'OpenApiDocumentError',
    'loadOpenApiDocument',
    'renderOpenApiTools',
  ]);
});
