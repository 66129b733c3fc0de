// The anchor: the official SDK v2 `McpServer` with zod schemas, the same two tools.
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  ADD_DESCRIPTION,
  addText,
  extraToolDescription,
  extraToolName,
  KINDS,
  SEARCH_DESCRIPTION,
  SERVER_INFO,
  searchText,
} from './bench-tools.js';

// #region sdk-server
const addInput = z.object({ a: z.number().describe('The first addend'), b: z.number().describe('The second addend') });

const searchInput = z.object({
  query: z.string().min(2).max(200),
  filters: z.object({
    tags: z.array(z.string()).max(10),
    kinds: z.array(z.enum(KINDS)).min(1),
    minStars: z.number().int().min(0).optional(),
  }),
  limit: z.number().int().min(1).max(50).optional(),
});

export function registerBenchTools(server: McpServer): void {
  server.registerTool('add', { description: ADD_DESCRIPTION, inputSchema: addInput }, ({ a, b }) => ({
    content: [{ type: 'text', text: addText(a, b) }],
  }));
  server.registerTool('search', { description: SEARCH_DESCRIPTION, inputSchema: searchInput }, (args) => ({
    content: [{ type: 'text', text: searchText(args) }],
  }));
}
// #endregion sdk-server

export function createSdkServer(extraTools = 0): McpServer {
  const server = new McpServer({ ...SERVER_INFO });
  registerBenchTools(server);
  for (let i = 1; i <= extraTools; i++) {
    server.registerTool(extraToolName(i), { description: extraToolDescription(i), inputSchema: addInput }, ({ a, b }) => ({
      content: [{ type: 'text', text: addText(a, b) }],
    }));
  }
  return server;
}
