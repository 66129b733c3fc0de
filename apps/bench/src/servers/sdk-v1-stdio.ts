// The SDK v1 McpServer (@modelcontextprotocol/sdk 1.x) + zod over stdio: `node sdk-v1-stdio.js [--extra N]`.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import {
  ADD_DESCRIPTION,
  addText,
  extraToolDescription,
  extraToolName,
  extraToolsFromArgv,
  KINDS,
  SEARCH_DESCRIPTION,
  SERVER_INFO,
  searchText,
} from './bench-tools.js';

const addShape = { a: z.number().describe('The first addend'), b: z.number().describe('The second addend') };
const searchShape = {
  query: z.string().min(2).max(200),
  filters: z.object({
    tags: z.array(z.string()).max(10),
    kinds: z.array(z.enum(KINDS)).min(1),
    minStars: z.number().int().min(0).optional(),
  }),
  limit: z.number().int().min(1).max(50).optional(),
};

const server = new McpServer({ ...SERVER_INFO });
server.registerTool('add', { description: ADD_DESCRIPTION, inputSchema: addShape }, ({ a, b }) => ({
  content: [{ type: 'text', text: addText(a, b) }],
}));
server.registerTool('search', { description: SEARCH_DESCRIPTION, inputSchema: searchShape }, (args) => ({
  content: [{ type: 'text', text: searchText(args) }],
}));
const extra = extraToolsFromArgv(process.argv);
for (let i = 1; i <= extra; i++) {
  server.registerTool(extraToolName(i), { description: extraToolDescription(i), inputSchema: addShape }, ({ a, b }) => ({
    content: [{ type: 'text', text: addText(a, b) }],
  }));
}
await server.connect(new StdioServerTransport());
