// How a call's answer looks on the wire, as the SDK's transports write it: one JSON body, or an SSE
// stream of the call's notifications and then its answer. Shared by the exchanges Armature answers
// itself (2026-07-28 over node:http and fetch, 2025-11-25 session POSTs).

import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { wireMessages } from '../../messages/wire-messages.js';
import { checkSessionFraming } from '../../seams/sdk-session-framing.js';
import { jsonRpcErrorBody } from './json-rpc-error-response.js';

/** Interval of the SSE keep-alive comment on a streamed answer: the SDK's `DEFAULT_SSE_KEEP_ALIVE_MS`. */
export const KEEP_ALIVE_MS = 15_000;
export const KEEP_ALIVE_COMMENT = ': keepalive\n\n';

/** The headers of a streamed answer, as the SDK's per-request transport sends them. */
export const SSE_HEADERS = Object.freeze({
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'content-type': 'text/event-stream',
  'x-accel-buffering': 'no',
});

/** The most messages of a JSON-RPC batch the SDK's session transport takes (its `MAX_BATCH_SIZE`). */
export const MAX_BATCH_MESSAGES = 100;

/**
 * The one error the SDK's per-request transport answers with an HTTP status of its own even from a
 * handler: -32021 (missing client capability), 400 as in its ladder table.
 */
const MISSING_CAPABILITY = -32021;

/** The HTTP status of a JSON answer. */
export function answerStatus(answer: unknown): number {
  return (answer as { error?: { code?: unknown } }).error?.code === MISSING_CAPABILITY ? 400 : 200;
}

/** One message as an SSE event, with its event id when the stream is resumable. */
export function sseFrame(message: unknown, eventId?: string): string {
  return eventId === undefined
    ? `event: message\ndata: ${JSON.stringify(message)}\n\n`
    : `event: message\nid: ${eventId}\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * Whether a resumable stream of a request in revision `protocolVersion` opens with a priming event
 * (and its handler may close it, `ctx.http.closeSSE`): a supported revision from 2025-11-25 on, the
 * SDK session transport's rule (`supportsEmptySSEData`).
 */
export function primesStreams(protocolVersion: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion) && protocolVersion >= '2025-11-25';
}

/**
 * The first event of a resumable stream (2025-11-25, SEP-1699): its id, the client's reconnection
 * delay when one is set, and no data, as the SDK's session transport writes it.
 */
export function primingFrame(eventId: string, retryMs: number | undefined): string {
  return retryMs === undefined ? `id: ${eventId}\ndata: \n\n` : `id: ${eventId}\nretry: ${retryMs}\ndata: \n\n`;
}

/**
 * Checks once per process that the SDK's session transport frames answers as the functions above
 * do; until it did, and when it does not, 2025-11-25 session answers are framed by the SDK's.
 */
export function sessionFramingChecked(): Promise<boolean> {
  return checkSessionFraming({
    headers: SSE_HEADERS,
    frame: sseFrame,
    priming: primingFrame,
    standaloneTaken: jsonRpcErrorBody(-32000, wireMessages.standaloneStreamTaken),
    maxBatch: MAX_BATCH_MESSAGES,
  });
}
