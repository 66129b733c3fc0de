import {
  type AuthInfo,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isJsonContentType,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  validateHostHeader,
} from '@modelcontextprotocol/server';
import { type AuthOptions, BearerAuth, ownerOf, type RequestHead } from '../../auth/bearer-auth.js';
import { hasScopes } from '../../auth/scopes.js';
import { MODERN_REVISION } from '../../context/revisions.js';
import { logMessages } from '../../messages/log-messages.js';
import { wireMessages } from '../../messages/wire-messages.js';
import type { RefusalReason, ServerEvents } from '../../observability/server-events.js';
import { DEFAULT_MESSAGE_LIMITS, type MessageLimits, prescanJson } from '../../validation/json-prescan.js';
import { type HeaderParam, paramHeaderProblem } from '../../validation/param-headers.js';
import { jsonRpcErrorResponse, unsafeIdResponse } from '../wire/json-rpc-error-response.js';
import { LARGE_INPUT, nextTurn } from '../wire/large-input.js';
import { clientAddress, isPublicAddress, type TrustProxy } from './client-address.js';
import type { FailedAuthLimit } from './failed-auth-limit.js';
import type { Caller } from './http-caller.js';
import { type Message, messagesOf, type ParsedBody } from './http-messages.js';
import type { HttpRateLimit } from './http-rate-limit.js';
import type { ServerCardRoute } from './server-card.js';
import { textMemo } from './text-memo.js';

/** The endpoint's options admission reads (part of `HttpEndpointOptions`). */
export interface AdmissionOptions {
  /**
   * How to find the client's address behind reverse proxies, for the per-client caps (sessions,
   * listen streams) of unauthenticated clients: the number of proxies in front of the server (the
   * address that many hops back in `X-Forwarded-For`), or the name of a header your proxy sets to
   * it (`'x-real-ip'`). Default: the socket's peer, which behind a proxy makes every client one.
   * Give it only when such proxies are really there: otherwise a client chooses its own address.
   */
  trustProxy?: TrustProxy;
  /**
   * Host names accepted in the `Host` header (DNS-rebinding protection). Default: localhost,
   * 127.0.0.1 and [::1]. `false` turns the check off (only behind a proxy that checks it).
   */
  allowedHosts?: string[] | false;
  /**
   * Host names accepted in the `Origin` header when a request carries one (the SDK's check compares
   * the origin's host name; scheme and port are not compared). Default: localhost, 127.0.0.1 and
   * [::1]. `false` turns the check off.
   */
  allowedOrigins?: string[] | false;
  /** Largest request body, answered 413 beyond. Default 4 MiB. */
  maxRequestBodySize?: number;
  /** OAuth 2.1 resource-server protection (bearer tokens, metadata, scopes). Default: none. */
  auth?: AuthOptions;
  /** Nesting and size limits checked on each body before it is parsed. */
  messageLimits?: MessageLimits;
}

/** Scopes one JSON-RPC request needs (from `@RequireScopes`), given by the app. */
export type ScopeRequirement = (method: string, params: Record<string, unknown> | undefined) => readonly string[];

/** What the app's calls require of an HTTP request: scopes of its token, headers mirroring its arguments. */
export interface CallRequirements {
  readonly scopes: ScopeRequirement;
  /** The tool's parameters mirrored in `Mcp-Param-*` headers (`x-mcp-header`), if any. */
  readonly headerParams: (tool: string) => readonly HeaderParam[] | undefined;
}

/** JSON-RPC error of a request whose headers disagree with its body (SEP-2243), answered with 400. */
const HEADER_MISMATCH = -32020;

/**
 * Whether an HTTP request is let in, in two steps: `admit` decides from the request line and
 * headers alone (shutdown, Host, Origin, declared size, the bearer token) before the body is read,
 * so an unauthenticated client cannot make the server read and parse megabytes before its 401;
 * `check` then looks at the body (pre-scan, one parse, the id, the scopes its calls need).
 */
export class HttpAdmission {
  readonly maxBody: number;
  private readonly allowedHosts: string[] | false;
  /** The SDK's verdict on a Host header, judged once per header value while the same few come again. */
  private readonly hostVerdict = textMemo((host) => validateHostHeader(host, this.allowedHosts || []));
  private readonly allowedOrigins: string[] | false;
  private readonly auth?: BearerAuth;
  private readonly messageLimits: Readonly<Required<MessageLimits>>;
  private readonly trustProxy?: TrustProxy;
  /** Set once a request came from a public peer although `trustProxy` is set (it is told once). */
  private warnedPublicPeer = false;
  /** Set once the endpoint stops accepting: every request is then refused with 503. */
  closed = false;

  constructor(
    options: AdmissionOptions,
    private readonly requirements?: CallRequirements,
    private readonly rateLimit?: HttpRateLimit,
    private readonly events?: ServerEvents,
    private readonly failedAuth?: FailedAuthLimit,
    /** The server card (`serverCard`), answered after the Host and Origin checks, without a token. */
    private readonly card?: ServerCardRoute,
  ) {
    if (options.auth) this.auth = new BearerAuth(options.auth);
    this.messageLimits = { ...DEFAULT_MESSAGE_LIMITS, ...options.messageLimits };
    this.maxBody = options.maxRequestBodySize ?? DEFAULT_MAX_REQUEST_BODY_SIZE;
    this.trustProxy = options.trustProxy;
    this.allowedHosts = options.allowedHosts ?? localhostAllowedHostnames();
    this.allowedOrigins = options.allowedOrigins ?? localhostAllowedOrigins();
  }

  /**
   * Everything decided from the request line and headers, the endpoint-wide rate limit last (so
   * what it counts are callers already let in); the body is not read.
   */
  async admit(request: RequestHead, remoteAddress?: string): Promise<{ caller: Caller } | { response: Response }> {
    if (this.closed) {
      this.refused('not-ready', wireMessages.shuttingDown);
      return { response: jsonRpcErrorResponse(503, -32000, wireMessages.shuttingDown) };
    }
    // The SDK's checks read only `headers.get` of what they are given.
    const head = request as Request;
    const hostHeader = head.headers.get('host');
    const host = !this.allowedHosts
      ? undefined
      : hostHeader === null
        ? validateHostHeader(hostHeader, this.allowedHosts)
        : this.hostVerdict(hostHeader);
    const badHost =
      host &&
      !host.ok &&
      jsonRpcErrorResponse(403, -32000, host.hostname ? wireMessages.hostRefused(host.message, host.hostname) : host.message);
    const rejected = badHost || (this.allowedOrigins && originValidationResponse(head, this.allowedOrigins));
    if (rejected) {
      if (badHost) this.refused('host', logMessages.hostNotAllowed(head.headers.get('host')));
      else this.refused('origin', logMessages.originNotAllowed(head.headers.get('origin')));
      return { response: rejected };
    }
    const metadata = this.auth?.serveMetadata(request);
    if (metadata) return { response: metadata };
    if (this.card?.matches(request)) {
      // Public discovery data: no token asked, but counted by the endpoint-wide limit as its address.
      const address = clientAddress(request.headers, remoteAddress, this.trustProxy);
      const limited = await this.rateLimit?.refusal(address ? { client: `ip:${address}`, address } : {});
      return { response: limited ?? this.card.answer(request) };
    }
    const length = Number(request.headers.get('content-length') ?? 0);
    if (length > this.maxBody) {
      this.refused('too-large', wireMessages.bodyTooLarge(this.maxBody));
      return { response: jsonRpcErrorResponse(413, -32000, wireMessages.bodyTooLarge(this.maxBody)) };
    }
    if (this.trustProxy && !this.warnedPublicPeer && remoteAddress !== undefined && isPublicAddress(remoteAddress)) {
      this.warnedPublicPeer = true;
      this.events?.emit({
        event: 'misconfigured',
        option: 'trustProxy',
        message: logMessages.trustProxyPublicPeer(this.trustProxy, remoteAddress),
      });
    }
    const address = clientAddress(request.headers, remoteAddress, this.trustProxy);
    let caller: Caller;
    if (!this.auth) caller = address ? { client: `ip:${address}`, address } : {};
    else {
      // An address that has spent its budget of failed authentications is not verified again.
      const spent = await this.failedAuth?.refusal(address);
      if (spent) return { response: spent };
      const outcome = await this.auth.authenticate(request);
      if ('response' in outcome) {
        const { status, headers } = outcome.response;
        // A 500 is the verifier's failure, reported as such, not a refused client.
        if (status < 500) {
          this.refused('unauthorized', logMessages.authRefused(status, headers.get('www-authenticate')));
          await this.failedAuth?.failed(address);
        }
        return outcome;
      }
      const owner = ownerOf(outcome.principal);
      // MCP authorization forbids passing the token through: handlers see who, not the token.
      const principal = { ...outcome.principal, token: 'redacted' };
      caller = { principal, owner, client: `sub:${owner}`, ...(address ? { address } : {}) };
    }
    const limited = await this.rateLimit?.refusal(caller);
    return limited ? { response: limited } : { caller };
  }

  /**
   * What every admitted request's body goes through before anything serves it: a JSON POST body is
   * pre-scanned (a nesting or size bomb is refused before anything parses it), parsed once (the
   * SDK's era classifier and transports would otherwise each parse it again), its id checked, and
   * the scopes its calls need asked of the token.
   */
  async check(head: RequestHead, caller: Caller, text: string | undefined): Promise<{ body?: ParsedBody } | { response: Response }> {
    let body: ParsedBody | undefined;
    if (text !== undefined) {
      // A large body is decoded, pre-scanned, parsed and served in separate turns of the event
      // loop, so other requests are served in between (reliability figure 7: no block over 50 ms).
      if (text.length >= LARGE_INPUT) await nextTurn();
      const scan = prescanJson(text, this.messageLimits);
      if (scan.problem) return { response: jsonRpcErrorResponse(400, -32600, wireMessages.invalidRequest(scan.problem), scan.id ?? null) };
      // Bodies that are not JSON (or not sent as JSON) are left for the SDK to refuse (-32700, 415).
      if (isJsonContentType(head.headers.get('content-type') ?? '')) {
        if (text.length >= LARGE_INPUT) await nextTurn();
        try {
          body = { value: JSON.parse(text) as unknown };
        } catch {
          body = undefined;
        }
        const id = (body?.value as Message | null | undefined)?.id;
        if (typeof id === 'number' && !Number.isSafeInteger(id)) return { response: unsafeIdResponse(scan.rawId) };
        // Serving it starts a turn later as well: the parse was this turn's work, and what runs
        // next (the SDK's checks, the arguments' validation) would otherwise add to it.
        if (text.length >= LARGE_INPUT) await nextTurn();
      }
    }
    const mismatch = this.paramHeaderMismatch(head, body);
    if (mismatch) return { response: mismatch };
    if (this.auth && caller.principal) {
      const stepUp = this.missingScopes(body, caller.principal);
      if (stepUp) {
        const response = this.auth.insufficientScope(stepUp);
        const id = (body?.value as Message | null | undefined)?.id;
        this.refused('forbidden', logMessages.authRefused(response.status, response.headers.get('www-authenticate')), {
          ...(typeof id === 'string' || typeof id === 'number' ? { requestId: id } : {}),
          ...(caller.client !== undefined ? { client: caller.client } : {}),
        });
        return { response };
      }
    }
    return { body };
  }

  /** Tells the app's observers (logs, metrics) that a request was refused, and why. */
  refused(reason: RefusalReason, message: string, about: { requestId?: string | number; client?: string } = {}): void {
    this.events?.emit({ event: 'refused', reason, message, ...about });
  }

  /**
   * A 2026-07-28 `tools/call` whose `Mcp-Param-*` headers do not repeat the arguments the tool
   * mirrors in headers (SEP-2243): 400 with -32020, before anything serves it.
   */
  private paramHeaderMismatch(head: RequestHead, body: ParsedBody | undefined): Response | undefined {
    const message = body?.value as Message | null | undefined;
    if (!this.requirements || typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
    if (message.method !== 'tools/call' || head.headers.get('mcp-protocol-version') !== MODERN_REVISION) return undefined;
    const tool = message.params?.name;
    const params = typeof tool === 'string' ? this.requirements.headerParams(tool) : undefined;
    const problem = params && paramHeaderProblem(params, message.params?.arguments, head.headers);
    if (!problem) return undefined;
    const text = wireMessages.paramHeader(tool as string, problem.header, problem.why);
    this.refused(
      'header-mismatch',
      text,
      typeof message.id === 'string' || typeof message.id === 'number' ? { requestId: message.id } : {},
    );
    return jsonRpcErrorResponse(400, HEADER_MISMATCH, text, message.id ?? null, {}, { header: problem.header, reason: problem.why });
  }

  /** The scopes a POSTed call needs when the token lacks some of them (403 insufficient_scope). */
  private missingScopes(body: ParsedBody | undefined, principal: AuthInfo): readonly string[] | undefined {
    if (!this.requirements) return undefined;
    for (const { method, params } of messagesOf(body)) {
      if (typeof method !== 'string') continue;
      const needed = this.requirements.scopes(method, params);
      if (!hasScopes(principal, needed)) return needed;
    }
    return undefined;
  }
}
