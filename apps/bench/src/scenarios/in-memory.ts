// In memory, one call at a time: JSON-RPC straight into each server's in-memory transport, in this
// process (the server's own cost per call, no client-side parsing).
import { RawConnection } from '../drivers/in-memory.js';
import type { Opened, Scenario } from '../harness.js';
import { createBenchApp } from '../servers/armature-app.js';
import { addText, type SearchArgs, searchText } from '../servers/bench-tools.js';
import { createSdkServer } from '../servers/sdk-v2-app.js';
import type { Settings } from '../settings.js';
import { ADD_FIXED, addArgs, checkRefused, checkSame, ok, SEARCH_FIXED, SEARCH_INVALID, searchArgs } from './tool-calls.js';

function sequential(connection: RawConnection, tool: string, args: (i: number) => Record<string, unknown>, count: number) {
  return async () => {
    const started = performance.now();
    for (let i = 0; i < count; i++) ok(await connection.request('tools/call', { name: tool, arguments: args(i) }));
    return (count * 1000) / (performance.now() - started);
  };
}

function inMemory(settings: Settings, tool: 'add' | 'search'): Scenario {
  const args = tool === 'add' ? addArgs : searchArgs;
  return {
    id: `in-memory ${tool}`,
    title: `in memory, one call at a time, tools/call ${tool}: ${settings.inMemoryCalls.toLocaleString('en-US')} sequential calls per sample, raw JSON-RPC into InMemoryTransport`,
    unit: 'calls/s',
    targets: [{ anchor: 'sdk', goal: { kind: 'ratio-at-least', value: 2 } }],
    async open(): Promise<Opened> {
      const app = createBenchApp();
      const [armature, sdk] = [await RawConnection.open(app.createServer()), await RawConnection.open(createSdkServer())];
      const close = async () => {
        await Promise.allSettled([armature.close(), sdk.close()]);
        await app.close();
      };
      try {
        const both = async (params: Record<string, unknown>) =>
          [
            ['Armature', await armature.request('tools/call', params)],
            ['SDK v2', await sdk.request('tools/call', params)],
          ] as const;
        if (tool === 'add') checkSame('add(2, 3) in memory', await both({ name: 'add', arguments: ADD_FIXED }), addText(2, 3));
        else {
          checkSame('search in memory', await both({ name: 'search', arguments: SEARCH_FIXED }), searchText(SEARCH_FIXED as SearchArgs));
          checkRefused('search with a one-letter query', await both({ name: 'search', arguments: SEARCH_INVALID }));
        }
        for (const connection of [armature, sdk]) await sequential(connection, tool, args, settings.warmupCalls)();
        return {
          sides: {
            armature: sequential(armature, tool, args, settings.inMemoryCalls),
            sdk: sequential(sdk, tool, args, settings.inMemoryCalls),
          },
          async after() {
            const { liveScopes } = app.stats;
            return [{ text: `Armature DI scopes left open: ${liveScopes} (must be 0)`, pass: liveScopes === 0, fatal: true }];
          },
          close,
        };
      } catch (error) {
        await close();
        throw error;
      }
    },
  };
}

export function inMemoryScenarios(settings: Settings): Scenario[] {
  return [inMemory(settings, 'add'), inMemory(settings, 'search')];
}
