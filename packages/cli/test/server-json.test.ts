import { describe, expect, it } from 'vitest';
import { formatServerJson, serverJsonProblems, serverJsonSchema } from '../src/inspect/server-json.js';
import { catalogue, manifest } from './support/publish-fixtures.js';

describe('armature inspect --format server-json', () => {
  it('writes the registry entry from package.json and @McpServer, valid against the vendored schema', () => {
    const text = formatServerJson(catalogue(), manifest);
    const serverJson = JSON.parse(text);
    expect(serverJson).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json',
      name: 'io.github.acme/weather-mcp',
      title: 'Weather',
      description: 'Forecasts and alerts for any city',
      version: '1.2.0',
      repository: { url: 'https://github.com/acme/weather-mcp', source: 'github', subfolder: 'servers/weather' },
      websiteUrl: 'https://acme.example/weather',
      packages: [{ registryType: 'npm', identifier: '@acme/weather-mcp', version: '1.2.0', transport: { type: 'stdio' } }],
    });
    expect(serverJsonProblems(serverJson)).toEqual([]);
  });

  it('reads npm repository shorthands', () => {
    const serverJson = JSON.parse(formatServerJson(catalogue(), { ...manifest, repository: 'github:acme/weather-mcp' }));
    expect(serverJson.repository).toEqual({ url: 'https://github.com/acme/weather-mcp', source: 'github' });
  });

  it('the vendored schema refuses what the registry refuses', () => {
    expect(serverJsonSchema().$id).toBe('https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json');
    expect(serverJsonProblems({ name: 'weather', version: '1.0.0', description: 'x' })).toEqual([
      '/name: must match pattern "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$"',
    ]);
    expect(serverJsonProblems({ name: 'io.github.a/b', version: '1.0.0' })).toEqual(["/: must have required property 'description'"]);
    expect(
      serverJsonProblems({
        name: 'io.github.a/b',
        version: '1.0.0',
        description: 'x',
        packages: [{ registryType: 'npm', identifier: 'b', version: 'latest', transport: { type: 'stdio' } }],
      }).length,
    ).toBeGreaterThan(0);
  });

  it('names each wrong field and the fix', () => {
    expect(() => formatServerJson(catalogue(), { ...manifest, description: 'x'.repeat(101) })).toThrow(
      /\/description: must NOT have more than 100 characters\nFix: correct the field in package\.json/,
    );
    expect(() => formatServerJson(catalogue(), { ...manifest, mcpName: undefined })).toThrow(
      'Fix: add "mcpName": "io.github.acme/weather-mcp" to package.json',
    );
    expect(() => formatServerJson(catalogue(), { ...manifest, description: undefined })).toThrow('package.json has no "description"');
    expect(() => formatServerJson(catalogue({ version: '1.0.0' }), manifest)).toThrow(
      '@McpServer of weather says version 1.0.0 but package.json says 1.2.0',
    );
  });
});
