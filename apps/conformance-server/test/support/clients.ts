/**
 * The official clients behind one small interface: the v1 SDK (`@modelcontextprotocol/sdk` 1.32.2)
 * and the v2 client (`@modelcontextprotocol/client` 2.4.0, on 2025-11-25 or 2026-07-28), over
 * Streamable HTTP. Each records what it saw: notifications, the requests the server sent it
 * (sampling, elicitation) and the HTTP requests it made.
 */
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

export type Json = Record<string, unknown>;

export interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
}

export interface ToolResult {
  content: ContentBlock[];
  structuredContent?: Json;
  isError?: boolean;
}

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  onprogress?: (progress: Progress) => void;
  /** 2026-07-28 only: the per-request log level (`_meta` io.modelcontextprotocol/logLevel). */
  logLevel?: string;
}

/** What the client answers to server requests; each test sets what it needs. */
export interface ClientAnswers {
  sampling: (params: Json) => Json;
  elicitation: (params: Json) => Json;
}

export interface Session {
  readonly label: string;
  readonly modern: boolean;
  /** Notifications received, in order (method + params). */
  readonly notifications: { method: string; params: Json }[];
  /** Server-to-client requests answered (method + params). */
  readonly serverRequests: { method: string; params: Json }[];
  /** Every HTTP request the transport made. */
  readonly http: { method: string; headers: Record<string, string> }[];
  answers: ClientAnswers;
  protocolVersion(): string | undefined;
  sessionId(): string | undefined;
  listTools(): Promise<{ name: string; description?: string; inputSchema: Json }[]>;
  callTool(name: string, args?: Json, options?: CallOptions): Promise<ToolResult>;
  listResources(): Promise<{ uri: string; name: string; description?: string; mimeType?: string }[]>;
  listResourceTemplates(): Promise<{ uriTemplate: string; name: string; description?: string; mimeType?: string }[]>;
  readResource(uri: string): Promise<{ contents: Json[] }>;
  listPrompts(): Promise<{ name: string; description?: string; arguments?: Json[] }[]>;
  getPrompt(name: string, args?: Record<string, string>): Promise<{ messages: { role: string; content: ContentBlock }[] }>;
  complete(prompt: string, argument: string, value: string): Promise<{ values: string[] }>;
  setLoggingLevel(level: string): Promise<Json>;
  subscribe(uri: string): Promise<Json>;
  unsubscribe(uri: string): Promise<Json>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const clientInfo = { name: 'armature-conformance-tests', version: '1.0.0' };
const capabilities = { sampling: {}, elicitation: {} };

const defaultAnswers = (): ClientAnswers => ({
  sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'sampled text' }, model: 'test-model', stopReason: 'endTurn' }),
  elicitation: () => ({ action: 'decline' }),
});

function recordingFetch(log: Session['http']): typeof fetch {
  return (input, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    log.push({ method: init?.method ?? 'GET', headers });
    return fetch(input, init);
  };
}

/** v1 client (`@modelcontextprotocol/sdk` 1.32.2): 2025-11-25 with a session. */
export async function connectV1(url: string): Promise<Session> {
  const http: Session['http'] = [];
  const notifications: Session['notifications'] = [];
  const serverRequests: Session['serverRequests'] = [];
  const transport = new V1StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(http) });
  const client = new V1Client(clientInfo, { capabilities });
  const session: Session = {
    label: 'v1 client (sdk 1.32.2), 2025-11-25',
    modern: false,
    notifications,
    serverRequests,
    http,
    answers: defaultAnswers(),
    protocolVersion: () => transport.protocolVersion,
    sessionId: () => transport.sessionId,
    listTools: async () => (await client.listTools()).tools as never,
    callTool: async (name, args = {}, options = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        signal: options.signal,
        onprogress: options.onprogress,
      })) as ToolResult,
    listResources: async () => (await client.listResources()).resources,
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    readResource: async (uri) => (await client.readResource({ uri })) as never,
    listPrompts: async () => (await client.listPrompts()).prompts as never,
    getPrompt: async (name, args) => (await client.getPrompt({ name, arguments: args })) as never,
    complete: async (prompt, argument, value) =>
      (await client.complete({ ref: { type: 'ref/prompt', name: prompt }, argument: { name: argument, value } })).completion,
    setLoggingLevel: async (level) => (await client.setLoggingLevel(level as never)) as Json,
    subscribe: async (uri) => (await client.subscribeResource({ uri })) as Json,
    unsubscribe: async (uri) => (await client.unsubscribeResource({ uri })) as Json,
    ping: async () => {
      await client.ping();
    },
    close: () => client.close(),
  };
  for (const schema of [
    LoggingMessageNotificationSchema,
    ResourceUpdatedNotificationSchema,
    ToolListChangedNotificationSchema,
    ResourceListChangedNotificationSchema,
    PromptListChangedNotificationSchema,
  ]) {
    client.setNotificationHandler(schema, (n) => {
      notifications.push({ method: n.method, params: (n.params ?? {}) as Json });
    });
  }
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    serverRequests.push({ method: request.method, params: request.params as Json });
    return session.answers.sampling(request.params as Json) as never;
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    serverRequests.push({ method: request.method, params: request.params as Json });
    return session.answers.elicitation(request.params as Json) as never;
  });
  await client.connect(transport);
  return session;
}

const V2_NOTIFICATIONS = [
  'notifications/message',
  'notifications/resources/updated',
  'notifications/tools/list_changed',
  'notifications/resources/list_changed',
  'notifications/prompts/list_changed',
] as const;

/** v2 client (`@modelcontextprotocol/client` 2.4.0): 2025-11-25 with a session, or 2026-07-28 (`modern`). */
export async function connectV2(url: string, modern: boolean): Promise<Session> {
  const http: Session['http'] = [];
  const notifications: Session['notifications'] = [];
  const serverRequests: Session['serverRequests'] = [];
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(http) });
  const client = new Client(clientInfo, { capabilities, ...(modern ? { versionNegotiation: { mode: 'auto' as const } } : {}) });
  const session: Session = {
    label: `v2 client (client 2.4.0), ${modern ? '2026-07-28' : '2025-11-25'}`,
    modern,
    notifications,
    serverRequests,
    http,
    answers: defaultAnswers(),
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    sessionId: () => transport.sessionId,
    listTools: async () => (await client.listTools()).tools as never,
    callTool: async (name, args = {}, options = {}) => {
      const _meta = options.logLevel ? { [LOG_LEVEL_META_KEY]: options.logLevel } : undefined;
      return (await client.callTool(
        { name, arguments: args, ...(_meta ? { _meta } : {}) },
        { signal: options.signal, onprogress: options.onprogress },
      )) as ToolResult;
    },
    listResources: async () => (await client.listResources()).resources,
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    readResource: async (uri) => (await client.readResource({ uri })) as never,
    listPrompts: async () => (await client.listPrompts()).prompts as never,
    getPrompt: async (name, args) => (await client.getPrompt({ name, arguments: args })) as never,
    complete: async (prompt, argument, value) =>
      (await client.complete({ ref: { type: 'ref/prompt', name: prompt }, argument: { name: argument, value } })).completion,
    setLoggingLevel: async (level) => (await client.setLoggingLevel(level as never)) as Json,
    subscribe: async (uri) => (await client.subscribeResource({ uri })) as Json,
    unsubscribe: async (uri) => (await client.unsubscribeResource({ uri })) as Json,
    ping: async () => {
      if (modern) await client.listTools();
      else await client.ping();
    },
    close: () => client.close(),
  };
  for (const method of V2_NOTIFICATIONS) {
    client.setNotificationHandler(method, (n: { method: string; params?: unknown }) => {
      notifications.push({ method: n.method, params: (n.params ?? {}) as Json });
    });
  }
  client.setRequestHandler('sampling/createMessage', (request: { method: string; params: unknown }) => {
    serverRequests.push({ method: request.method, params: request.params as Json });
    return session.answers.sampling(request.params as Json) as never;
  });
  client.setRequestHandler('elicitation/create', (request: { method: string; params: unknown }) => {
    serverRequests.push({ method: request.method, params: request.params as Json });
    return session.answers.elicitation(request.params as Json) as never;
  });
  await client.connect(transport);
  return session;
}
