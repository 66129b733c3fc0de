import { type ErrorFilter, ToolError } from '@armature/core';
import { HttpException } from '@nestjs/common';

/**
 * The error filter of a Nest-hosted app: the user's filter first (it sees what the method threw),
 * then a client-error `HttpException` (`NotFoundException`, `BadRequestException`, any status below
 * 500) becomes a `ToolError`: an expected failure the model reads, with Nest's response body as
 * `structuredContent`, and nothing reported to `onError`. A 5xx stays an unexpected error.
 */
export function withHttpExceptions(userFilter: ErrorFilter | undefined): ErrorFilter {
  return (error, context) => {
    const filtered = userFilter ? userFilter(error, context) : error;
    if (!(filtered instanceof HttpException) || filtered.getStatus() >= 500) return filtered;
    const body = filtered.getResponse();
    return new ToolError(filtered.message, typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined);
  };
}
