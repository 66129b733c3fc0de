import { type ExceptionFilter, HttpException } from '@nestjs/common';
import { FILTER_CATCH_EXCEPTIONS } from '@nestjs/common/constants.js';
import { httpAnswerOf, mcpOutcomeOf } from './http-exceptions.js';
import type { McpExecutionContext } from './mcp-execution-context.js';
import type { McpCall } from './mcp-request.js';
import type { McpResponse } from './mcp-response.js';
import type { NestRequestScope } from './nest-container-adapter.js';
import { type HandlerEnhancers, NestEnhancers } from './nest-enhancers.js';

function catches(filter: ExceptionFilter, error: unknown): boolean {
  const types = Reflect.getMetadata(FILTER_CATCH_EXCEPTIONS, filter.constructor) as Function[] | undefined;
  return !types || types.length === 0 || types.some((type) => error instanceof type);
}

/**
 * What to answer for `error` once Nest's exception filters have seen it: the first filter whose
 * `@Catch()` matches, asked method first, then class, then global (Nest's order). What the filter
 * throws or returns, or what it writes to `getResponse()` (`status(409).json({...})`, Nest's
 * `BaseExceptionFilter`), becomes the answer; a filter that does neither leaves `error` as it was.
 */
export async function filteredError(
  error: unknown,
  filters: HandlerEnhancers<ExceptionFilter>,
  scope: NestRequestScope,
  call: McpCall,
  host: McpExecutionContext,
  response: McpResponse,
): Promise<unknown> {
  for (const ref of [...filters.enhancers].reverse()) {
    const filter = await NestEnhancers.instanceOf(ref, scope);
    if (!catches(filter, error)) continue;
    let returned: unknown;
    try {
      returned = await filter.catch(error, host);
    } catch (thrown) {
      // Headers it set before throwing (Retry-After) belong to the answer, as on REST.
      return thrown instanceof HttpException ? mcpOutcomeOf({ ...httpAnswerOf(thrown), headers: response.headers }, call, thrown) : thrown;
    }
    if (returned instanceof Error) return returned;
    if (response.written) {
      return mcpOutcomeOf({ status: response.statusCode, body: response.body, headers: response.headers }, call, error);
    }
    if (returned !== undefined) return mcpOutcomeOf({ status: 400, body: returned }, call, error);
    return error;
  }
  return error;
}
