import { apiKeyHeader, OpenApiClient } from '@armature/openapi';
import { Service } from 'typedi';

/**
 * Where the Petstore tools send their calls, and with which credentials. Yours to edit:
 * armature generate openapi writes this file once and leaves it alone afterwards.
 * The document asks for an API key in the X-Api-Key header (PETSTORE_API_KEY).
 * Credentials: apiKeyHeader(name, key) and bearerToken(token) send fixed ones; callerBearerToken(tokenFor)
 * a token per MCP caller, which tokenFor gets for the principal (by token exchange, say: the caller's own
 * MCP token is never passed on); any (ctx, operation) => headers function works too.
 */
@Service()
export class PetstoreApi extends OpenApiClient {
  constructor() {
    super({
      baseUrl: process.env.PETSTORE_API_URL ?? 'https://petstore.example.com/v1',
      credentials: apiKeyHeader('X-Api-Key', process.env.PETSTORE_API_KEY ?? ''),
    });
  }
}
