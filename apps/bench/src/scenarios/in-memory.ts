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

/**
 * Like `sequential`, per second of this process's CPU time rather than of the clock: both servers
 * and the driver run in this process, and CPU time does not count the moments another process of
 * a shared machine had the core, which would swamp a difference of a few percent.
 */
function sequentialCpu(connection: RawConnection, tool: string, args: (i: number) => Record<string, unknown>, count: number) {
  return async () => {
    const started = process.cpuUsage();
    for (let i = 0; i < count; i++) ok(await connection.request('tools/call', { name: tool, arguments: args(i) }));
    const used = process.cpuUsage(started);
    return (count * 1_000_000) / (used.user + used.system);
  };
}

/**
 * What the OpenTelemetry instrumentation costs an app that registered no SDK (the default: spans
 * and metrics go to the API's no-ops): the same app built twice, with the instrumentation (the
 * default) and with `telemetry: false`, called in turn.
 */
function telemetryCost(settings: Settings): Scenario {
  return {
    id: 'telemetry cost add',
    title: `in memory, one call at a time, tools/call add with no OpenTelemetry SDK registered: the default app against the same app with telemetry: false, ${settings.telemetryCalls.toLocaleString('en-US')} sequential calls per sample, calls per CPU second of the process, judged on the median of ${settings.telemetryPasses} paired passes`,
    unit: 'calls/s',
    targets: [{ anchor: 'untraced', goal: { kind: 'ratio-at-least', value: 0.98 } }],
    passes: settings.telemetryPasses,
    paired: true,
    async open(): Promise<Opened> {
      const traced = createBenchApp();
      const untraced = createBenchApp(0, { telemetry: false });
      const [withIt, without] = [await RawConnection.open(traced.createServer()), await RawConnection.open(untraced.createServer())];
      const close = async () => {
        await Promise.allSettled([withIt.close(), without.close()]);
        await Promise.allSettled([traced.close(), untraced.close()]);
      };
      try {
        for (const connection of [withIt, without]) await sequential(connection, 'add', addArgs, settings.warmupCalls)();
        return {
          sides: {
            armature: sequentialCpu(withIt, 'add', addArgs, settings.telemetryCalls),
            untraced: sequentialCpu(without, 'add', addArgs, settings.telemetryCalls),
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
  return [inMemory(settings, 'add'), inMemory(settings, 'search'), telemetryCost(settings)];
}
