// Every text @armature/openapi shows a model, a caller or a developer, formatted here only.
import type { OpenApiOperation } from './openapi-operation.js';

/** How much of an error body a tool error quotes. */
export const BODY_EXCERPT_CHARS = 500;

const call = (operation: OpenApiOperation): string => `${operation.operationId} (${operation.method} ${operation.path})`;

export function excerpt(body: string): string {
  const flat = body.trim();
  return flat.length > BODY_EXCERPT_CHARS ? `${flat.slice(0, BODY_EXCERPT_CHARS)}...` : flat;
}

/** A caller's or an API's value quoted in a message: as JSON (control characters escaped), cut short. */
function shown(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}...` : value);
}

/** A Location header quoted in a message: as it came when it is printable, else as JSON; cut short. */
function shownUrl(location: string): string {
  return /^[\x21-\x7e]{1,200}$/.test(location) ? location : shown(location);
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
  dotPathValue: (operation: OpenApiOperation, name: string, value: string) =>
    `${call(operation)}: the path parameter "${name}" cannot be ${shown(value)}: a "." or ".." segment, in any spelling or encoding, would move the call to another path. Give one ${name}.`,
  emptyPathValue: (operation: OpenApiOperation, name: string) =>
    `${call(operation)}: the path parameter "${name}" cannot be empty: the call would reach another path. Give one ${name}.`,
  pathOutsideTemplate: (operation: OpenApiOperation, path: string, basePath: string) =>
    `${call(operation)}: the request path ${shown(path)} does not fit ${basePath}${operation.path}, so nothing was sent. Give each path parameter one plain value.`,
  badHeaderValue: (operation: OpenApiOperation, name: string) =>
    `${call(operation)}: the header parameter "${name}" cannot hold line breaks, other control characters or characters beyond Latin-1. Give it plain text.`,
  redirectElsewhere: (operation: OpenApiOperation, status: number, location: string, origin: string) =>
    `${call(operation)} answered HTTP ${status} with a redirect to ${shownUrl(location)}, another origin than the API's (${origin}): not followed, so the API's credentials stay with it. If the API moved, set baseUrl of its OpenApiClient to the new address.`,
  tooManyRedirects: (operation: OpenApiOperation, status: number, location: string, max: number) =>
    `${call(operation)} was redirected more than ${max} times, the last time with HTTP ${status} to ${shownUrl(location)}: not followed further.`,
  noPrincipal: (operation: OpenApiOperation) =>
    `${call(operation)} calls the API as the MCP caller, and this call has no authenticated caller. Serve the app with auth (docs/auth.md), or give the API's OpenApiClient fixed credentials (apiKeyHeader, bearerToken).`,
  noBaseUrl: (given: string | undefined) =>
    `OpenApiClient needs a baseUrl such as https://api.example.com/v1 (the servers[0].url of the document)${given ? `; ${shown(given)} is not a URL` : ''}.`,
} as const;
