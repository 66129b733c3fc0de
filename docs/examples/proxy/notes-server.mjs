// An MCP server written with the official SDK, nothing of Armature in it: the kind of server a
// team already runs and wants behind its gateway. It serves both protocol revisions on stdio.
import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const notes = ['Buy milk', 'Call the bank', 'Milk the cow'];

serveStdio(() => {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'search',
    {
      description: 'Find the notes that contain a word',
      inputSchema: fromJsonSchema({ type: 'object', properties: { word: { type: 'string', minLength: 2 } }, required: ['word'] }),
    },
    async ({ word }, ctx) => {
      const found = [];
      for (const [i, note] of notes.entries()) {
        const progressToken = ctx.mcpReq._meta?.progressToken;
        if (progressToken !== undefined)
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: i + 1, total: notes.length } });
        if (note.toLowerCase().includes(word.toLowerCase())) found.push(note);
        await new Promise((resolve) => setTimeout(resolve, 10)); // a real search takes time
      }
      return { content: [{ type: 'text', text: found.join('\n') || 'no note matches' }] };
    },
  );
  return server;
});
