import { bearerToken, OpenApiClient } from '@armature/openapi';
import { Service } from 'typedi';

/**
 * Where the Kitchen Sink tools send their calls, and with which credentials. Yours to edit:
 * armature generate openapi writes this file once and leaves it alone afterwards.
 * The document asks for a bearer token (KITCHEN_SINK_API_TOKEN).
 * Credentials: apiKeyHeader(name, key) and bearerToken(token) send fixed ones; callerBearerToken(tokenFor)
 * a token per MCP caller, which tokenFor gets for the principal (by token exchange, say: the caller's own
 * MCP token is never passed on); any (ctx, operation) => headers function works too.
 */
@Service()
export class KitchenSinkApi extends OpenApiClient {
  constructor() {
    super({
      baseUrl: process.env.KITCHEN_SINK_API_URL ?? 'https://kitchen.example.com',
      credentials: bearerToken(process.env.KITCHEN_SINK_API_TOKEN ?? ''),
    });
  }
}
