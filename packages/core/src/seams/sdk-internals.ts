// The one module that reaches into members of `@modelcontextprotocol/server` its typings keep
// private or protected (`.ci/lint-seams.mjs` fails on any other). The request engine (answering the
// frequent requests without the SDK's per-message parsing) needs them so that its answers stay the
// SDK's own, byte for byte. Before anything is served with them, `sdkInternals()` checks that each
// exists and that known results encode to known bytes; when not, it returns undefined, says so once
// on stderr, and every request goes through the SDK's public request handling instead.
import { McpServer, PerRequestHTTPServerTransport, type RequestId, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { LEGACY_REVISION, MODERN_REVISION } from '../context/revisions.js';
import { seamMessages } from '../messages/seam-messages.js';

/** The part of the SDK's era codec (`Server._wireCodec()`) the request engine encodes with. */
export interface WireCodec {
  readonly era: string;
  hasRequestMethod(method: string): boolean;
  encodeResult(method: string, result: unknown, serverInfo?: unknown): unknown;
  encodeErrorCode(code: number): number;
  validateResult(method: string, result: unknown): { ok: true; value: unknown } | { ok: false; reason: string; message?: string };
}

export type SdkRequest = { method: string; params?: Record<string, unknown> };
/** A handler as the SDK runs it: it awaits what the handler returns, a promise or not. */
export type SdkHandler = (request: SdkRequest, ctx: ServerContext) => unknown;

/** What the log filter of the SDK reads of a request: its session, id, envelope (2026-07-28) and how to notify. */
export interface LogRequest {
  readonly sessionId: string | undefined;
  readonly mcpReq: {
    readonly id: RequestId;
    readonly envelope?: Record<string, unknown>;
    notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  };
}

export type SdkLog = (level: string, data: unknown, logger?: string) => Promise<void>;

/** The SDK's internals, reached only through here. */
export interface SdkInternals {
  /** The server's negotiated era codec. */
  codec(server: Server): WireCodec;
  /** What the 2026-07-28 encoding stamps as `serverInfo`. */
  serverInfo(server: Server): unknown;
  /** The SDK's wrapper around a request handler (result schema, input-required seams). */
  wrap(server: Server, method: string, handler: SdkHandler): SdkHandler;
  /** The SDK's input-required checks around a handler, without the result schema. */
  invokeInputRequiredCapable(
    server: Server,
    method: string,
    handler: SdkHandler,
    request: SdkRequest,
    ctx: ServerContext,
  ): Promise<unknown>;
  /**
   * `ctx.mcpReq.log` as the SDK makes it (capability and level filter), from only what that filter
   * reads: no web `Request` or other HTTP detail is built for it.
   */
  logOf(server: Server, request: LogRequest): SdkLog;
}

interface ServerMembers {
  _wireCodec(): WireCodec;
  _outboundServerInfo(): unknown;
  _wrapHandler(method: string, handler: SdkHandler): SdkHandler;
  _invokeInputRequiredCapableHandler(method: string, handler: SdkHandler, request: SdkRequest, ctx: ServerContext): Promise<unknown>;
  buildContext(base: LogRequest, extra: undefined): { mcpReq: { log: SdkLog } };
}

const MEMBERS: readonly (keyof ServerMembers)[] = [
  '_wireCodec',
  '_outboundServerInfo',
  '_wrapHandler',
  '_invokeInputRequiredCapableHandler',
  'buildContext',
];

const members = (server: Server) => server as unknown as ServerMembers;

const internals: SdkInternals = Object.freeze({
  codec: (server: Server) => members(server)._wireCodec(),
  serverInfo: (server: Server) => members(server)._outboundServerInfo(),
  wrap: (server: Server, method: string, handler: SdkHandler) => members(server)._wrapHandler(method, handler),
  invokeInputRequiredCapable: (server: Server, method: string, handler: SdkHandler, request: SdkRequest, ctx: ServerContext) =>
    members(server)._invokeInputRequiredCapableHandler(method, handler, request, ctx),
  logOf: (server: Server, request: LogRequest) => members(server).buildContext(request, undefined).mcpReq.log,
});

/** A result whose encoding on each revision the request engine relies on, and those encodings. */
const PROBE_RESULT = Object.freeze({ content: [{ type: 'text', text: 'probe' }] });
const EXPECTED: Readonly<Record<string, string>> = {
  [LEGACY_REVISION]: '{"content":[{"type":"text","text":"probe"}]}',
  // The modern probe is the app's own server: its serverInfo is stamped as `?`.
  [MODERN_REVISION]:
    '{"content":[{"type":"text","text":"probe"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":?}}',
};

/** What is not as the request engine expects of a server bound to `revision` (empty when all is). */
function problemsOf(server: Server, revision: string): string[] {
  const problems: string[] = [];
  for (const member of MEMBERS) {
    if (typeof (server as unknown as Record<string, unknown>)[member] !== 'function') problems.push(`Server.${member} is missing`);
  }
  if (problems.length > 0) return problems;
  try {
    const codec = internals.codec(server);
    const info = internals.serverInfo(server);
    const encoded = JSON.stringify(codec.encodeResult('tools/call', PROBE_RESULT, info));
    const expected = EXPECTED[revision]?.replace('?', () => JSON.stringify(info) ?? '');
    if (codec.era !== revision) problems.push(`the ${revision} codec reports era ${codec.era}`);
    else if (encoded !== expected) problems.push(`a ${revision} tool result encodes as ${encoded}`);
    else if (codec.encodeErrorCode(-32002) !== -32602) problems.push(`error -32002 encodes as ${codec.encodeErrorCode(-32002)}`);
  } catch (error) {
    problems.push(`encoding a ${revision} result throws ${error instanceof Error ? error.message : String(error)}`);
  }
  return problems;
}

let checked: SdkInternals | null | undefined;

/**
 * The SDK's internals once checked (on the first call, for the whole process: their members, and
 * a 2025-11-25 tool result and error code encoded to known bytes), or undefined when they are not
 * as expected: the reason is then written once on stderr and the caller serves through the SDK's
 * public path.
 */
export function sdkInternals(): SdkInternals | undefined {
  if (checked === undefined) {
    const probe = new McpServer({ name: 'probe', version: '0' }, { capabilities: { tools: {} } }).server;
    const problems = problemsOf(probe, LEGACY_REVISION);
    if (problems.length > 0) process.stderr.write(seamMessages.sdkEngineOff(problems));
    checked = problems.length === 0 ? internals : null;
  }
  return checked ?? undefined;
}

/**
 * Binds `server` to 2026-07-28 as `createMcpHandler` binds its per-request servers, through a
 * transport whose `send` hands what the server sends (the notifications of the calls it serves)
 * to `deliver`; then checks that a tool result encodes on that revision to known bytes. Throws,
 * saying what is not as expected, when the request engine must not serve with it.
 */
export async function bindToModern(server: Server, deliver: (message: unknown, related: RequestId | undefined) => void): Promise<void> {
  class Binding extends PerRequestHTTPServerTransport {
    override async send(message: Parameters<PerRequestHTTPServerTransport['send']>[0], options?: { relatedRequestId?: RequestId }) {
      deliver(message, options?.relatedRequestId);
    }
  }
  await server.connect(
    new Binding({ classification: { era: 'modern', revision: MODERN_REVISION } } as ConstructorParameters<
      typeof PerRequestHTTPServerTransport
    >[0]),
  );
  const problems = problemsOf(server, MODERN_REVISION);
  if (problems.length > 0) throw new Error(problems.join('; '));
}
