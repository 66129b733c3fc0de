import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/stdio-app.mjs', import.meta.url));

describe('a Nest application context over stdio (spawned, from the build)', () => {
  for (const modern of [false, true]) {
    const revision = modern ? '2026-07-28' : '2025-11-25';

    it(`lists and calls tools on ${revision}, a request-scoped provider per call; header-reading guards deny cleanly`, async () => {
      const client = new Client({ name: 'nest-stdio', version: '1' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
      const transport = new StdioClientTransport({ command: process.execPath, args: [fixture], stderr: 'pipe' });
      const stderr: string[] = [];
      transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
      await client.connect(transport);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(revision);
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(['whoami']);
        const texts: string[] = [];
        for (let i = 0; i < 2; i++) {
          const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text: string }> };
          texts.push(result.content[0]?.text ?? '');
        }
        const serials = texts.map((text) => /^repository #(\d+) for request (\S+)$/.exec(text));
        expect(serials.every(Boolean), texts.join(' / ')).toBe(true);
        expect(serials[0]?.[1]).not.toBe(serials[1]?.[1]);
        expect(serials.map((match) => match?.[2])).not.toContain('undefined');
        // AuthGuard('jwt') finds no Authorization header; TenantGuard throws a TypeError reading x-tenant.
        for (const name of ['account', 'tenant']) {
          await expect(client.callTool({ name, arguments: {} })).rejects.toThrow(`Unknown tool: "${name}". Available tools: whoami`);
        }
      } finally {
        await client.close();
      }
      expect(stderr.join('')).toBe('');
    }, 60_000); // a Nest start and six requests over stdio: about 2 s when quiet, ten times that at a load average of 28
  }
});
