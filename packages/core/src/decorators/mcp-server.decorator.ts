import type { Constructor, McpServerOptions } from '../metadata/metadata-args.js';
import { getMetadataStorage } from '../metadata/metadata-storage.js';
import { refuseStandardDecorator } from './standard-decorators.js';

/**
 * Marks a class as an MCP server. Its `@Tool` methods become the server's tools.
 *
 * @example
 * ```ts
 * @McpServer({ name: 'weather', version: '1.0.0' })
 * class WeatherServer {
 *   @Tool({ description: 'Forecast for a city' })
 *   forecast(input: ForecastInput) { return `Sunny in ${input.city}`; }
 * }
 * ```
 */
export function McpServer(options: McpServerOptions): ClassDecorator {
  return (target, ...rest: unknown[]) => {
    refuseStandardDecorator('@McpServer', rest[0]);
    getMetadataStorage().collectServer({ target: target as unknown as Constructor, options: { ...options } });
  };
}
