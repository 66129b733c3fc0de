import { forwardBearerToken, OpenApiClient } from '@armature/openapi';
import { Service } from 'typedi';

/**
 * Where the Petstore tools send their calls, and with which credentials. Yours to
 * edit: armature generate openapi writes this file once and leaves it alone afterwards.
 * Credentials: forwardBearerToken() passes on the MCP caller's token; apiKeyHeader(name, key) or
 * bearerToken(token) send a fixed one; any (ctx, operation) => headers function works.
 */
@Service()
export class PetstoreApi extends OpenApiClient {
  constructor() {
    super({ baseUrl: process.env.PETSTORE_API_URL ?? 'https://petstore.example.com/v1', credentials: forwardBearerToken() });
  }
}
