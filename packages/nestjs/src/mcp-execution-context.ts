import type { ExecutionContext as ArmatureExecution, Constructor } from '@armature/core';
import type { ExecutionContext, Type } from '@nestjs/common';

type HttpArgumentsHost = ReturnType<ExecutionContext['switchToHttp']>;
type RpcArgumentsHost = ReturnType<ExecutionContext['switchToRpc']>;
type WsArgumentsHost = ReturnType<ExecutionContext['switchToWs']>;

import type { McpCall } from './mcp-request.js';

/**
 * The Nest `ExecutionContext` of an MCP call: `getType()` is `'mcp'` (as `'http'`, `'rpc'`,
 * `'ws'`), `getClass()`/`getHandler()` are the server class and its method (so `Reflector`
 * metadata such as `@Public()` or `@Roles()` reads as on a controller), and the one argument is
 * the `McpCall`, also what `switchToHttp().getRequest()` returns.
 */
export class McpExecutionContext implements ExecutionContext {
  readonly call: McpCall;
  private readonly args: [McpCall];

  constructor(
    execution: ArmatureExecution,
    private readonly handler: Function,
  ) {
    const principal = execution.context.principal;
    this.call = Object.freeze({
      transport: 'mcp',
      kind: execution.kind,
      name: execution.name,
      phase: execution.phase,
      args: execution.args,
      context: execution.context,
      principal,
      user: principal,
    });
    this.args = [this.call];
    this.serverClass = execution.serverClass;
  }

  private readonly serverClass: Constructor;

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
    const call = this.call;
    return { getRequest: <T>() => call as T, getResponse: <T>() => undefined as T, getNext: <T>() => undefined as T };
  }

  switchToRpc(): RpcArgumentsHost {
    const call = this.call;
    return { getData: <T>() => call.args as T, getContext: <T>() => call as T };
  }

  switchToWs(): WsArgumentsHost {
    const call = this.call;
    return { getClient: <T>() => call as T, getData: <T>() => call.args as T, getPattern: () => call.name };
  }
}
