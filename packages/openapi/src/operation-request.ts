import { ToolError } from '@armature/core';
import { OPENAPI_MESSAGES } from './messages.js';
import type { OpenApiOperation } from './openapi-operation.js';
import { pathSegment } from './path-segment.js';
import { fitsTemplate } from './path-template.js';

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

/** Whether a header can carry the text: no line breaks or other controls (but tab), nothing beyond Latin-1. */
const headerSafe = (text: string): boolean =>
  [...text].every((char) => char === '\t' || (char >= ' ' && char !== '\x7f' && char <= '\xff'));

/**
 * Maps a validated DTO onto the operation's URL, query, headers and JSON body. Fields left unset
 * are not sent. Arrays in the query repeat the parameter (OpenAPI's default `form` + `explode`).
 * A path value that would change the path, a header value a header cannot carry, and a URL that
 * no longer fits the operation's template under the base path are tool errors: nothing is sent.
 */
export function buildOperationRequest(base: URL, operation: OpenApiOperation, input: object): OperationRequest {
  const values = input as Record<string, unknown>;
  let path = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const parameter of operation.parameters) {
    const value = values[parameter.field];
    if (parameter.in === 'path') {
      if (value === undefined || value === null) throw new ToolError(OPENAPI_MESSAGES.missingPathValue(operation, parameter.name));
      path = path.replaceAll(`{${parameter.name}}`, pathSegment(operation, parameter.name, asText(value)));
      continue;
    }
    if (value === undefined || value === null) continue;
    if (parameter.in === 'query') {
      for (const item of Array.isArray(value) ? value : [value]) query.append(parameter.name, asText(item));
    } else {
      const text = Array.isArray(value) ? value.map(asText).join(',') : asText(value);
      if (!headerSafe(text)) throw new ToolError(OPENAPI_MESSAGES.badHeaderValue(operation, parameter.name));
      headers[parameter.name.toLowerCase()] = text;
    }
  }
  // The base URL's own path is kept: https://host/v1 + /pets -> https://host/v1/pets.
  const basePath = base.pathname.replace(/\/+$/, '');
  const url = new URL(`${base.origin}${basePath}${path}`);
  if (!fitsTemplate(url, base, operation.path))
    throw new ToolError(OPENAPI_MESSAGES.pathOutsideTemplate(operation, url.pathname, basePath));
  // The base URL's own query (an API key some APIs take there) comes first, then the operation's.
  for (const [name, value] of [...base.searchParams, ...query]) url.searchParams.append(name, value);
  if (operation.body === undefined || values[operation.body] === undefined) return { url, headers };
  headers['content-type'] = 'application/json';
  return { url, headers, body: JSON.stringify(values[operation.body]) };
}
