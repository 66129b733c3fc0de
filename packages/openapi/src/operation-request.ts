import { OPENAPI_MESSAGES } from './messages.js';
import type { OpenApiOperation } from './openapi-operation.js';

/** The parts of one HTTP call, before credentials and the signal are added. */
export interface OperationRequest {
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** A query or header value as text: dates as ISO 8601, anything else as its string. */
function asText(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/**
 * Maps a validated DTO onto the operation's URL, query, headers and JSON body. Fields left unset
 * are not sent. Arrays in the query repeat the parameter (OpenAPI's default `form` + `explode`).
 */
export function buildOperationRequest(baseUrl: string, operation: OpenApiOperation, input: object): OperationRequest {
  const values = input as Record<string, unknown>;
  let path = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const parameter of operation.parameters) {
    const value = values[parameter.field];
    if (parameter.in === 'path') {
      if (value === undefined || value === null) throw new Error(OPENAPI_MESSAGES.missingPathValue(operation, parameter.name));
      path = path.replaceAll(`{${parameter.name}}`, encodeURIComponent(asText(value)));
      continue;
    }
    if (value === undefined || value === null) continue;
    if (parameter.in === 'query') {
      for (const item of Array.isArray(value) ? value : [value]) query.append(parameter.name, asText(item));
    } else {
      headers[parameter.name.toLowerCase()] = Array.isArray(value) ? value.map(asText).join(',') : asText(value);
    }
  }
  // The base URL's own path is kept: https://host/v1 + /pets -> https://host/v1/pets.
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
  for (const [name, value] of query) url.searchParams.append(name, value);
  if (operation.body === undefined || values[operation.body] === undefined) return { url, headers };
  headers['content-type'] = 'application/json';
  return { url, headers, body: JSON.stringify(values[operation.body]) };
}
