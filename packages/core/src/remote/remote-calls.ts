import type { Client, RequestOptions } from '@modelcontextprotocol/client';
import { LOG_LEVEL_META_KEY, ProtocolError } from '@modelcontextprotocol/server';
import type { PartNaming } from '../builder/definitions.js';
import type { Context } from '../context/context.js';
import { ToolError } from '../context/errors.js';
import { MODERN_REVISION } from '../context/revisions.js';
import { remoteMessages } from '../messages/remote-messages.js';
import { clientRequest } from '../observability/request-tracing.js';
import { InputRequiredSignal } from '../runtime/client-requests.js';
import { loadedClientSdk } from './client-sdk.js';
import { NotAnAnswerError } from './direct-answer.js';
import { isConnectionLoss, type RemoteLink, RemoteUnavailableError } from './remote-link.js';
import { askCaller, CallTimeLimit, relayLog, remoteLogLevel, UnsafeUrlError } from './remote-relay.js';

/** A 2026-07-28 remote answers a question with input_required at most this often in one call. */
const MAX_ROUNDS = 10;

type Result = Record<string, unknown>;
type Params = Record<string, unknown>;

/**
 * Sends one request of a call to the remote server: the call's cancellation and progress go
 * with it, its trace context goes in `_meta`, and a 2026-07-28 remote's questions
 * (`input_required`) are put to the call's client and the request sent again with the answers.
 * Failures come back as what the caller should read.
 */
export async function forward(
  link: RemoteLink,
  naming: PartNaming,
  ctx: Context,
  method: 'tools/call' | 'prompts/get' | 'resources/read' | 'completion/complete',
  params: Params,
  headers?: Record<string, string>,
): Promise<Result> {
  try {
    // maxCallMs is the whole call's limit, which the remote's progress does not extend (timeoutMs does).
    return await link.relay.run(ctx, link.maxCallMs, (signal, labelled) =>
      link.use((client) =>
        clientRequest(method, undefined, (meta) =>
          rounds(client, link, naming, ctx, { method, first: params, headers }, meta, { signal, labelled }),
        ),
      ),
    );
  } catch (error) {
    if (error instanceof CallTimeLimit && !ctx.signal.aborted)
      throw new ToolError(remoteMessages.tooLong(naming.where, link.label, link.maxCallMs));
    throw failure(error, link, naming, ctx);
  }
}

async function rounds(
  client: Client,
  link: RemoteLink,
  naming: PartNaming,
  ctx: Context,
  { method, first, headers }: { method: string; first: Params; headers: Record<string, string> | undefined },
  meta: Record<string, unknown> | undefined,
  { signal, labelled }: { signal: AbortSignal; labelled: <R>(send: () => Promise<R>) => Promise<R> },
): Promise<Result> {
  const options: RequestOptions = {
    signal,
    // A 2026-07-28 HTTP remote reads the tool's Mcp-Param-* headers (stdio ignores them).
    ...(headers && Object.keys(headers).length > 0 ? { headers } : {}),
    timeout: link.timeoutMs,
    resetTimeoutOnProgress: true,
    allowInputRequired: true,
    ...(ctx.meta.progressToken !== undefined
      ? { onprogress: (p) => void ctx.progress(p.progress, p.total, p.message).catch(() => undefined) }
      : {}),
  };
  // A 2026-07-28 remote logs at the level it is asked to in each request (a 2025-11-25 one, per connection: everything).
  const level = client.getNegotiatedProtocolVersion() === MODERN_REVISION ? remoteLogLevel(ctx) : undefined;
  let params: Params = meta || level ? { ...first, _meta: { ...meta, ...(level ? { [LOG_LEVEL_META_KEY]: level } : {}) } } : first;
  // A tool call to a 2026-07-28 HTTP remote: one POST of its own (undefined: the official client sends it after all).
  const direct = method === 'tools/call' ? link.directPath(client) : undefined;
  const directOptions = direct && {
    signal,
    timeoutMs: link.timeoutMs,
    ...(headers ? { headers } : {}),
    ...(options.onprogress ? { onprogress: options.onprogress } : {}),
    onlog: (log: Params) => relayLog(ctx, log),
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const result = ((directOptions && (await direct?.call(params, directOptions))) ??
      (await labelled(() => client.request({ method, params } as never, options)))) as Result;
    if (result.resultType !== 'input_required') return result;
    // Asked together, under the remote's keys: the app's client gets the remote's round as it was.
    const asked = Object.entries((result.inputRequests ?? {}) as Record<string, { method: string; params?: Params }>);
    const answers = await Promise.all(asked.map(([key, request]) => askCaller(ctx, request.method, request.params ?? {}, key)));
    const inputResponses = Object.fromEntries(asked.map(([key], i) => [key, answers[i]]));
    params = { ...params, inputResponses, ...(result.requestState !== undefined ? { requestState: result.requestState } : {}) };
  }
  throw new ToolError(remoteMessages.tooManyRounds(naming.where, MAX_ROUNDS));
}

/** What the caller of a forwarded request gets for `error`. */
function failure(error: unknown, link: RemoteLink, naming: PartNaming, ctx: Context): unknown {
  // Cancelled by the client, or ended to ask the client (2026-07-28): the executor answers those.
  if (ctx.signal.aborted || error instanceof InputRequiredSignal || error instanceof ToolError) return error;
  if (error instanceof RemoteUnavailableError) return new ToolError(error.message);
  // A 2026-07-28 remote asked through its answer, so there is no request of its to refuse: the call ends.
  if (error instanceof UnsafeUrlError) return new ToolError(remoteMessages.unsafeUrlAsked(naming.where, error.problem));
  if (error instanceof NotAnAnswerError) return new ToolError(remoteMessages.badAnswer(naming.where, link.label, error.problem));
  const sdk = loadedClientSdk();
  // The remote's own JSON-RPC error, passed on as it is (the SDK client and server have each their class).
  if (sdk && error instanceof sdk.ProtocolError) return new ProtocolError(error.code, error.message, error.data);
  if (sdk && error instanceof sdk.SdkError && error.code === sdk.SdkErrorCode.RequestTimeout)
    return new ToolError(remoteMessages.timedOut(naming.where, link.label, link.timeoutMs));
  if (sdk && error instanceof sdk.SdkHttpError)
    return new ToolError(remoteMessages.httpRefused(naming.where, link.label, error.status, error.message));
  if (isConnectionLoss(error)) return new ToolError(remoteMessages.lostDuringCall(naming.where, link.label));
  return error;
}
