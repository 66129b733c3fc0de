import { ToolError } from '@armature/core';
import { OPENAPI_MESSAGES } from './messages.js';
import type { OpenApiOperation } from './openapi-operation.js';

/** How many redirects within the API's origin one call follows. */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** One HTTP call of a tool, credentials included. */
export interface OutgoingCall {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal: AbortSignal;
}

/**
 * Makes the call and follows its redirects while they stay on the API's origin (scheme, host and
 * port), at most MAX_REDIRECTS of them; so the credentials in the headers only ever reach the API.
 * A redirect elsewhere, or one too many, is a tool error naming it. As fetch does, a 303 (and a
 * 301/302 answering a POST) is followed as a GET without the body; 307 and 308 repeat the call.
 */
export async function fetchWithinOrigin(fetcher: typeof fetch, operation: OpenApiOperation, call: OutgoingCall): Promise<Response> {
  const origin = call.url.origin;
  let { url, method, body } = call;
  let headers = call.headers;
  for (let followed = 0; ; followed++) {
    const response = await fetcher(url, { method, headers, body, signal: call.signal, redirect: 'manual' });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    await response.body?.cancel();
    const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
    if (next?.origin !== origin) throw new ToolError(OPENAPI_MESSAGES.redirectElsewhere(operation, response.status, location, origin));
    if (followed === MAX_REDIRECTS)
      throw new ToolError(OPENAPI_MESSAGES.tooManyRedirects(operation, response.status, location, MAX_REDIRECTS));
    if (response.status === 303 ? method !== 'HEAD' : response.status <= 302 && method === 'POST') {
      method = 'GET';
      body = undefined;
      const { 'content-type': _dropped, ...rest } = headers;
      headers = rest;
    }
    url = next;
  }
}
