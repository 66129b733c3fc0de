import { ProtocolError, ProtocolErrorCode, McpServer as SdkMcpServer, type ServerContext, type Tool } from '@modelcontextprotocol/server';
import type { AppDefinition } from '../builder/definitions.js';
import type { ContainerAdapter } from '../di/container-adapter.js';
import { SdkRequestContext } from './context.js';
import { invokeTool, type RuntimeStats, type ToolErrorReporter, type ToolInvoker } from './invoke-tool.js';

/**
 * The per-request side of an app: it reads only the frozen `AppDefinition`. `createServer()`
 * builds the SDK server for one connection (a 2025-11-25 session, a stdio pipe, or one
 * 2026-07-28 request) by installing two handlers over the shared registry: nothing is registered
 * per tool, so the cost does not grow with the number of tools.
 */
export class AppRuntime implements ToolInvoker {
  readonly stats: RuntimeStats = { liveScopes: 0, calls: 0 };
  private readonly unknownToolHint: string;

  constructor(
    readonly definition: AppDefinition,
    readonly container: ContainerAdapter,
    readonly reportError: ToolErrorReporter,
  ) {
    const names = [...definition.tools.keys()];
    this.unknownToolHint =
      names.length <= 20 ? `Available tools: ${names.join(', ')}` : `Call tools/list to see the ${names.length} available tools`;
  }

  createServer(): SdkMcpServer {
    const { info, instructions } = this.definition;
    const mcp = new SdkMcpServer(
      { ...info },
      { capabilities: { tools: { listChanged: true }, logging: {} }, ...(instructions ? { instructions } : {}) },
    );
    const tools = this.definition.toolList as Tool[];
    mcp.server.setRequestHandler('tools/list', () => ({ tools }));
    mcp.server.setRequestHandler('tools/call', (request, ctx) => this.callTool(request.params.name, request.params.arguments, ctx));
    return mcp;
  }

  callTool(name: string, args: unknown, sdkCtx: ServerContext) {
    const tool = this.definition.tools.get(name);
    if (!tool) {
      // Spec 2025-11-25, tools: an unknown tool is a protocol error (-32602), not a tool result.
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: "${name}". ${this.unknownToolHint}`);
    }
    return invokeTool(this, tool, args, new SdkRequestContext(sdkCtx));
  }
}
