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
