/** Reading the JSON-RPC messages of an HTTP request and following its response body. */

/** A request body already parsed by the endpoint (wrapped, since `null` is a valid JSON body). */
export interface ParsedBody {
  readonly value: unknown;
}

export interface Message {
  readonly method?: unknown;
  readonly id?: unknown;
  readonly params?: Record<string, unknown>;
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
