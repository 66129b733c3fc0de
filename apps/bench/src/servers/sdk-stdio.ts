// The SDK v2 McpServer + zod over stdio, as its documentation wires it: `node sdk-stdio.js [--extra N]`.
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { extraToolsFromArgv } from './bench-tools.js';
import { createSdkServer } from './sdk-v2-app.js';

await createSdkServer(extraToolsFromArgv(process.argv)).connect(new StdioServerTransport());
