import type { Constructor } from '@armature/core';
import type { ArgumentsHost, ExecutionContext, Type } from '@nestjs/common';
import type { McpCall, MutableMcpRequest } from './mcp-request.js';
import type { McpResponse } from './mcp-response.js';

type HttpArgumentsHost = ReturnType<ExecutionContext['switchToHttp']>;
type RpcArgumentsHost = ReturnType<ExecutionContext['switchToRpc']>;
type WsArgumentsHost = ReturnType<ExecutionContext['switchToWs']>;

/**
 * The Nest `ExecutionContext` (and `ArgumentsHost`, for exception filters) of an MCP call:
 * `getType()` is `'mcp'` (as `'http'`, `'rpc'`, `'ws'`), `getClass()`/`getHandler()` are the
 * server class and its method (so `Reflector` metadata such as `@Public()` or `@Roles()` reads as
 * on a controller), and the arguments are those of an HTTP handler: `switchToHttp().getRequest()`
 * is the HTTP request of the MCP POST with the call in `request.mcp` (an `McpRequest`), and
 * `getResponse()` an `McpResponse` that records what is written to it.
 */
export class McpExecutionContext implements ExecutionContext, ArgumentsHost {
  private readonly args: [object, McpResponse, () => void];

  /** `call` is undefined while a guard authenticates the request, before any tool is chosen. */
  constructor(
    private readonly call: McpCall | undefined,
    request: object,
    response: McpResponse,
    private readonly serverClass: Constructor,
    private readonly handler: Function,
  ) {
    if (call) (request as MutableMcpRequest).mcp = call;
    this.args = [request, response, () => undefined];
  }

  getType<T extends string = 'mcp'>(): T {
    return 'mcp' as T;
  }

  getClass<T = unknown>(): Type<T> {
    return this.serverClass as unknown as Type<T>;
  }

  getHandler(): Function {
    return this.handler;
  }

  getArgs<T extends unknown[] = unknown[]>(): T {
    return this.args as unknown as T;
  }

  getArgByIndex<T = unknown>(index: number): T {
    return this.args[index] as T;
  }

  switchToHttp(): HttpArgumentsHost {
    const [request, response, next] = this.args;
    return { getRequest: <T>() => request as T, getResponse: <T>() => response as T, getNext: <T>() => next as T };
  }

  switchToRpc(): RpcArgumentsHost {
    const [request] = this.args;
    return { getData: <T>() => this.call?.args as T, getContext: <T>() => request as T };
  }

  switchToWs(): WsArgumentsHost {
    const [request] = this.args;
    return { getClient: <T>() => request as T, getData: <T>() => this.call?.args as T, getPattern: () => this.call?.name ?? '' };
  }
}
