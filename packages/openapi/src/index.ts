export { apiKeyHeader, bearerToken, type Credentials, callerBearerToken } from './credentials.js';
export { OpenApiClient, type OpenApiClientOptions } from './openapi-client.js';
export type { OpenApiOperation, OpenApiParameter, ParameterLocation } from './openapi-operation.js';
