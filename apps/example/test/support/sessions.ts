import type { Readable } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MAIN, trackPid } from './processes.js';
import { recordTraffic, type Traffic } from './traffic.js';

export interface ToolResult {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

/** One client connection, v1 or v2 SDK, over stdio or HTTP, behind the same few calls. */
export interface Session {
  listToolNames(): Promise<string[]>;
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<ToolResult>;
  /** A cheap request proving the connection still serves: `ping`, or `tools/list` on 2026-07-28 where ping is gone. */
  stillServing(): Promise<void>;
  /** The negotiated revision, when the client tells it. */
  protocolVersion(): string | undefined;
  /** The HTTP session id (2025-11-25 over HTTP only). */
  sessionId(): string | undefined;
  traffic: Traffic;
  close(): Promise<void>;
}

const clientInfo = { name: 'armature-example-e2e', version: '1.0.0' };
// stderr piped and drained: the server's own lines (a cancelled call's report) stay out of the test output.
const stdioServer = { command: process.execPath, args: [MAIN, '--stdio'], stderr: 'pipe' as const };

async function v2Session(
  transport: StdioClientTransport | StreamableHTTPClientTransport,
  options: ConstructorParameters<typeof Client>[1] = {},
): Promise<Session> {
  const client = new Client(clientInfo, options);
  await client.connect(transport);
  const modern = client.getNegotiatedProtocolVersion() === '2026-07-28';
  return {
    listToolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    callTool: async (name, args, callOptions) => (await client.callTool({ name, arguments: args }, callOptions)) as ToolResult,
    stillServing: async () => {
      if (modern) await client.listTools();
      else await client.ping();
    },
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    sessionId: () => (transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined),
    traffic: recordTraffic(transport),
    close: () => client.close(),
  };
}

async function v1Session(transport: V1StdioClientTransport | V1StreamableHTTPClientTransport): Promise<Session> {
  const client = new V1Client(clientInfo);
  await client.connect(transport);
  const http = transport instanceof V1StreamableHTTPClientTransport ? transport : undefined;
  return {
    listToolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    callTool: async (name, args, callOptions) => (await client.callTool({ name, arguments: args }, undefined, callOptions)) as ToolResult,
    stillServing: async () => {
      await client.ping();
    },
    protocolVersion: () => http?.protocolVersion,
    sessionId: () => http?.sessionId,
    traffic: recordTraffic(transport),
    close: () => client.close(),
  };
}

/** v2 client spawning `node dist/main.js --stdio` (2025-11-25). */
export async function stdioV2(): Promise<Session> {
  const transport = new StdioClientTransport(stdioServer);
  (transport.stderr as Readable | null)?.resume();
  const session = await v2Session(transport);
  trackPid(transport.pid);
  return session;
}

/** v1 client (`@modelcontextprotocol/sdk` 1.32.2) spawning `node dist/main.js --stdio`. */
export async function stdioV1(): Promise<Session> {
  const transport = new V1StdioClientTransport(stdioServer);
  (transport.stderr as Readable | null)?.resume();
  const session = await v1Session(transport);
  trackPid(transport.pid);
  return session;
}

/** v2 client over Streamable HTTP: 2025-11-25 with a session, or 2026-07-28 (stateless) with `modern`. */
export function httpV2(url: string, modern: boolean): Promise<Session> {
  return v2Session(new StreamableHTTPClientTransport(new URL(url)), modern ? { versionNegotiation: { mode: 'auto' } } : {});
}

/** v1 client over Streamable HTTP (2025-11-25, with a session). */
export function httpV1(url: string): Promise<Session> {
  return v1Session(new V1StreamableHTTPClientTransport(new URL(url)));
}
