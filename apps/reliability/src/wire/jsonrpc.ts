// JSON-RPC helpers shared by the raw HTTP and stdio clients.

export type Id = string | number;

export interface JsonRpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: { content?: Array<{ type: string; text?: string }>; isError?: boolean; [key: string]: unknown };
  error?: { code: unknown; message: unknown; data?: unknown };
}

export const PROTOCOL_2025 = '2025-11-25';
export const PROTOCOL_2026 = '2026-07-28';

export const CLIENT_INFO = { name: 'reliability', version: '1.0.0' };

export function initializeRequest(id: Id): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL_2025, capabilities: {}, clientInfo: CLIENT_INFO },
  };
}

export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

export function callRequest(id: Id, name: string, args: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** A 2026-07-28 request: the protocol version, client info and capabilities travel in `_meta`. */
export function modernCall(id: Id, name: string, args: unknown): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_2026,
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

export function isResponse(message: JsonRpcMessage): boolean {
  return message.method === undefined && ('result' in message || 'error' in message);
}

/** The text of a tool result's first content block. */
export function resultText(message: JsonRpcMessage): string | undefined {
  const first = message.result?.content?.[0];
  return first?.type === 'text' ? first.text : undefined;
}

const STACK_FRAME = /\n\s+at\s|\bat\s+\S+\s+\([^)]*:\d+:\d+\)|\bat\s+(?:file|node):/;
const FILE_PATH =
  /(?:file:\/\/|node:internal|node_modules|(?:^|[\s"'(])\/(?:[\w.@-]+\/)+[\w.@-]+\.(?:m?[jt]s|cjs|json)\b|[A-Za-z]:\\[\w\\ .-]+)/;

/** Why `text` leaks internals (a stack frame or a file path), or undefined when it does not. */
export function leak(text: string): string | undefined {
  const frame = STACK_FRAME.exec(text);
  if (frame) return `stack frame: ${JSON.stringify(text.slice(Math.max(0, frame.index - 40), frame.index + 80))}`;
  const path = FILE_PATH.exec(text);
  if (path) return `file path: ${JSON.stringify(text.slice(Math.max(0, path.index - 40), path.index + 80))}`;
  return undefined;
}
