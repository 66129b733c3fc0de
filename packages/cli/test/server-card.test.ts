import { createMcpApp, McpServer } from '@armature/core';
import { describe, expect, it } from 'vitest';
import { formatServerCard } from '../src/inspect/server-card.js';
import { catalogue, manifest } from './support/publish-fixtures.js';

describe('armature inspect --format server-card', () => {
  it('writes the SEP-2127 card from package.json and @McpServer: identity and where to connect, no tools', async () => {
    const card = JSON.parse(await formatServerCard(catalogue(), manifest, 'https://mcp.acme.example/mcp'));
    expect(card).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'io.github.acme/weather-mcp',
      version: '1.2.0',
      description: 'Forecasts and alerts for any city',
      title: 'Weather',
      websiteUrl: 'https://acme.example/weather',
      repository: { url: 'https://github.com/acme/weather-mcp', source: 'github', subfolder: 'servers/weather' },
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://mcp.acme.example/mcp',
          supportedProtocolVersions: expect.arrayContaining(['2025-11-25', '2026-07-28']),
        },
      ],
    });
    expect(JSON.stringify(card)).not.toContain('get_forecast');
    expect(JSON.parse(await formatServerCard(catalogue(), manifest)).remotes).toBeUndefined();
  });

  it('is the card listenHttp({ serverCard }) serves for the same fields (one builder)', async () => {
    @McpServer({ name: 'weather', version: '1.2.0', title: 'Weather' })
    class WeatherServer {}
    const written = JSON.parse(await formatServerCard(catalogue(), manifest, 'https://mcp.acme.example/mcp'));
    const listener = await createMcpApp(WeatherServer).listenHttp({
      port: 0,
      serverCard: {
        name: manifest.mcpName,
        description: manifest.description,
        websiteUrl: manifest.homepage,
        repository: written.repository,
        url: 'https://mcp.acme.example/mcp',
      },
    });
    try {
      const served = await fetch(`${listener.url}/server-card`);
      expect(served.status).toBe(200);
      expect(await served.json()).toEqual(written);
    } finally {
      await listener.close();
    }
  }, 30_000);

  it('says what package.json lacks, as server-json does, and every field the draft refuses at once', async () => {
    await expect(formatServerCard(catalogue(), { ...manifest, mcpName: undefined })).rejects.toThrow(/package\.json has no "mcpName"/);
    let message = '';
    try {
      await formatServerCard(catalogue({ title: 'T'.repeat(101) }), { ...manifest, description: 'd'.repeat(101) }, 'file:///etc/passwd');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`the server card's description is "${'d'.repeat(101)}"; it must be 1 to 100 characters [ARM187]`);
    expect(message).toContain("the server card's title (@McpServer)");
    expect(message).toContain(`the server card's url is "file:///etc/passwd"; it must be the endpoint as an http(s) URL [ARM187]`);
  });
});
