import { type ErrorFilter, type ExecutionContext, McpError, ToolError } from '@armature/core';
import { HttpException } from '@nestjs/common';
import { nestMessages } from './nest-messages.js';

/** What an HTTP answer says, from an `HttpException` or from what an exception filter wrote. */
export interface HttpAnswer {
  readonly status: number;
  readonly body: unknown;
  /** `retry-after` and friends, when a filter set them. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** JSON-RPC "invalid params": what Armature answers for an unknown tool or prompt. */
const INVALID_PARAMS = -32602;
/** MCP "resource not found". */
const RESOURCE_NOT_FOUND = -32002;
/** JSON-RPC method not found: how a refused extension method is answered (as Armature answers it). */
const METHOD_NOT_FOUND = -32601;

/**
 * The MCP outcome of an HTTP answer (the table in docs/nestjs.md):
 * - 401 and 403: refused as an unknown tool or prompt (a resource as not found), as a denying guard is;
 * - 429: a tool error saying when to retry (`retryAfter` in seconds in its structured content);
 * - any other status below 500 (400, 404, 409, 422...): a tool error with the message, and the
 *   body as structured content;
 * - 5xx: `original`, which Armature reports to `onError` and masks unless the app sets `exposeErrors`.
 */
export function mcpOutcomeOf(answer: HttpAnswer, call: Pick<ExecutionContext, 'kind' | 'name'>, original: unknown): unknown {
  const { status, body } = answer;
  if (status >= 500) return original;
  if (status === 401 || status === 403) {
    if (call.kind === 'method') return new McpError(METHOD_NOT_FOUND, nestMessages.methodRefused(call.name));
    return call.kind === 'resource' || call.kind === 'resourceTemplate'
      ? new McpError(RESOURCE_NOT_FOUND, nestMessages.resourceRefused(call.name))
      : new McpError(INVALID_PARAMS, nestMessages.refused(call.kind, call.name));
  }
  const details = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const message = messageOf(body, status);
  if (status === 429) {
    const retryAfter = Number(answer.headers?.['retry-after'] ?? details?.retryAfter);
    if (Number.isFinite(retryAfter)) return new ToolError(nestMessages.retryAfter(message, retryAfter), { ...details, retryAfter });
  }
  return new ToolError(message, details);
}

/** The answer an `HttpException` stands for. */
export function httpAnswerOf(exception: HttpException): HttpAnswer {
  const response = exception.getResponse();
  return { status: exception.getStatus(), body: typeof response === 'string' ? { message: response } : response };
}

function messageOf(body: unknown, status: number): string {
  if (typeof body === 'string' && body !== '') return body;
  const message = (body as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string' && message !== '') return message;
  if (Array.isArray(message) && message.length > 0) return message.map(String).join('\n');
  return nestMessages.httpStatus(status);
}

/**
 * The error filter of a Nest-hosted app: the user's filter first (it sees what the method threw),
 * then an `HttpException` (thrown by the method, or left by a Nest exception filter) becomes its
 * MCP outcome (`mcpOutcomeOf`).
 */
export function withHttpExceptions(userFilter: ErrorFilter | undefined): ErrorFilter {
  return (error, context) => {
    const filtered = userFilter ? userFilter(error, context) : error;
    return filtered instanceof HttpException ? mcpOutcomeOf(httpAnswerOf(filtered), context, filtered) : filtered;
  };
}
