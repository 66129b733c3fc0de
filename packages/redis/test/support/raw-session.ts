import { request } from 'node:http';

// A 2025-11-25 session spoken by hand over node:http (no SDK client), for the tests that compare
// or watch the exact bytes.

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export interface RawAnswer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** POSTs one JSON-RPC message; resolves with the whole answer. */
export function post(url: string, body: object, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...HEADERS, ...headers, 'content-length': Buffer.byteLength(text) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * Opens an initialized 2025-11-25 session at a URL (or through a send function); the headers every later
 * request of it carries.
 */
export async function openSession(
  to: string | ((body: object, headers?: Record<string, string>) => Promise<RawAnswer>),
): Promise<Record<string, string>> {
  const send = typeof to === 'string' ? (body: object, headers?: Record<string, string>) => post(to, body, headers) : to;
  const init = await send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const headers = { 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return headers;
}

/** An open SSE response, read as it arrives. */
export interface HeldStream {
  readonly status: number;
  /** Resolves with the body once it holds `count` events (keep-alive comments aside), or ended. */
  events(count: number): Promise<string>;
  /** The client goes away. */
  drop(): void;
}

/** Opens a GET of a session; resolves once its response's headers arrived. */
export function holdStream(url: string, headers: Record<string, string>): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let body = '';
      let ended = false;
      let wake: () => void = () => undefined;
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
        wake();
      });
      res.on('end', () => {
        ended = true;
        wake();
      });
      res.on('error', () => undefined);
      const count = () => body.split('\n\n').filter((event) => /^(id|data|event):/m.test(event)).length;
      resolve({
        status: res.statusCode ?? 0,
        events: (wanted) =>
          new Promise((settle, fail) => {
            const timer = setTimeout(() => fail(new Error(`stream timed out with ${JSON.stringify(body)}`)), 20_000);
            wake = () => {
              if (count() < wanted && !ended) return;
              clearTimeout(timer);
              settle(body);
            };
            wake();
          }),
        drop: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
