// Every text @armature/openapi shows a model, a caller or a developer, formatted here only.
import type { OpenApiOperation } from './openapi-operation.js';

/** How much of an error body a tool error quotes. */
export const BODY_EXCERPT_CHARS = 500;

const call = (operation: OpenApiOperation): string => `${operation.operationId} (${operation.method} ${operation.path})`;

export function excerpt(body: string): string {
  const flat = body.trim();
  return flat.length > BODY_EXCERPT_CHARS ? `${flat.slice(0, BODY_EXCERPT_CHARS)}...` : flat;
}

export const OPENAPI_MESSAGES = {
  httpStatus: (operation: OpenApiOperation, status: number, statusText: string, body: string) =>
    `${call(operation)} answered HTTP ${status}${statusText ? ` ${statusText}` : ''}${body ? `: ${excerpt(body)}` : ' with an empty body'}`,
  timedOut: (operation: OpenApiOperation, ms: number) =>
    `${call(operation)} did not answer within ${ms} ms. Try again later, or raise timeoutMs of the API's OpenApiClient.`,
  unreachable: (operation: OpenApiOperation, url: string, cause: unknown) =>
    `${call(operation)} could not reach ${url}: ${cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause)}`,
  tooLarge: (operation: OpenApiOperation, limit: number) =>
    `${call(operation)} answered more than ${limit} bytes. Ask for less (a smaller page, a filter), or raise maxResponseBytes of the API's OpenApiClient.`,
  badJson: (operation: OpenApiOperation, body: string) =>
    `${call(operation)} answered with a JSON content type but a body that is not JSON: ${excerpt(body)}`,
  missingPathValue: (operation: OpenApiOperation, name: string) =>
    `${call(operation)}: no value for the path parameter "${name}" (the generated DTO marks it required: regenerate it from the document)`,
  noPrincipal: (operation: OpenApiOperation) =>
    `${call(operation)} calls the API as the MCP caller, and this call has no authenticated caller. Serve the app with auth (docs/auth.md), or give the API's OpenApiClient fixed credentials (apiKeyHeader, bearerToken).`,
  noBaseUrl: () => 'OpenApiClient needs a baseUrl such as https://api.example.com/v1 (the servers[0].url of the document).',
} as const;
