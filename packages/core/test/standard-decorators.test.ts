import { describe, expect, it } from 'vitest';
import { McpServer, Tool } from '../src/index.js';

// A compiler without `experimentalDecorators` (tsc 5+ by default, Bun or Deno started outside the
// project's tsconfig.json) calls decorators the TC39 way, `(value, context)`: start-up must say so
// and how to fix it, not fail with a TypeError deep inside.

const FIX =
  'set "experimentalDecorators": true and "emitDecoratorMetadata": true in the tsconfig.json the compiler reads (Bun reads the one of the folder it runs in: start it there, or with `bun --cwd <project>`; Deno reads the one beside package.json)';

describe('decorators called as standard (TC39) decorators', () => {
  it('@Tool names the method and the fix', () => {
    const forecast = () => 'sunny';
    const tool = Tool({ description: 'Forecast' }) as unknown as (value: unknown, context: unknown) => void;
    const call = () => tool(forecast, { kind: 'method', name: 'forecast', static: false, private: false });
    expect(call).toThrow(
      `method "forecast": @Tool was called as a standard (TC39) decorator, which records no parameter types: Armature needs TypeScript's legacy decorators and their metadata`,
    );
    expect(call).toThrow(`[ARM127]\n     Fix: ${FIX}`);
  });

  it('@McpServer names the class and the fix', () => {
    const server = McpServer({ name: 'weather', version: '1.0.0' }) as unknown as (value: unknown, context: unknown) => void;
    expect(() => server(class Weather {}, { kind: 'class', name: 'Weather' })).toThrow(
      'class "Weather": @McpServer was called as a standard (TC39) decorator',
    );
  });
});
