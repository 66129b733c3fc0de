/** Reading the JSON-RPC messages of an HTTP request and following its response body. */
import { isPlainObject } from '../../validation/plain-object.js';

/** A request body already parsed by the endpoint (wrapped, since `null` is a valid JSON body). */
export interface ParsedBody {
  readonly value: unknown;
}

export interface Message {
  readonly method?: unknown;
  readonly id?: unknown;
  readonly params?: Record<string, unknown>;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * A JSON-RPC request of plain shape, read by the SDK's schemas as it stands: `jsonrpc` "2.0", a
 * string or safe-integer id, a method, params (if any) an object, and no other member (a `result`
 * or `error` would make it a response).
 */
export function isPlainRequest(message: unknown): message is Message & { id: string | number; method: string } {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return false;
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  return (
    jsonrpc === '2.0' &&
    (typeof id === 'string' || Number.isSafeInteger(id)) &&
    typeof method === 'string' &&
    (params === undefined || isPlainObject(params))
  );
}

export function messagesOf(body: ParsedBody | undefined): Message[] {
  if (!body) return [];
  return (Array.isArray(body.value) ? body.value : [body.value]).filter((m): m is Message => typeof m === 'object' && m !== null);
}

/** True when a POST body is a JSON array (a batch), read from a clone so the body stays readable. */
export async function isBatch(request: Request): Promise<boolean> {
  const text = await request.clone().text();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x5b; // '['
  }
  return false;
}

/** Calls `done` once when the response body has been read to its end or cancelled (the client went away). */
export function whenBodyEnds(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    done();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: finished, value } = await reader.read();
        if (finished) {
          end();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
