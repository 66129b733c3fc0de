import type { Catalogue } from '../../src/inspect/load-catalogue.js';

// The project both publishing formats (server.json, the server card) are written from in the tests.

export const catalogue = (server: Partial<Catalogue['server']> = {}): Catalogue => ({
  server: { name: 'weather', version: '1.2.0', title: 'Weather', ...server },
  tools: [{ name: 'get_forecast', description: 'Forecast', inputSchema: { type: 'object' } }],
  resources: [],
  resourceTemplates: [],
  prompts: [],
});

export const manifest = {
  name: '@acme/weather-mcp',
  version: '1.2.0',
  description: 'Forecasts and alerts for any city',
  mcpName: 'io.github.acme/weather-mcp',
  homepage: 'https://acme.example/weather',
  repository: { type: 'git', url: 'git+https://github.com/acme/weather-mcp.git', directory: 'servers/weather' },
};
