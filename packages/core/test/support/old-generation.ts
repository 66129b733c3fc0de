import v8 from 'node:v8';
import vm from 'node:vm';
import { Context, McpServer, Tool } from '../../src/index.js';

// Counting what calls under load leave in the old generation, after a mark-compact forced while
// calls are in flight (it moves what they and their connection hold to the old generation).

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/**
 * A server whose `add` tool answers 'ok', and whose `step` tool reports its one step of progress
 * (a notification, when the call carries a progress token) and answers 'ok'; after `collectNext()`,
 * the next call of either first runs two full collections, everything in flight then moving to the
 * old generation.
 */
export function collectingServer(name: string): { server: new () => object; collectNext(): void } {
  let collect = false;
  const collectIfAsked = () => {
    if (collect) {
      collect = false;
      gc();
      gc();
    }
  };
  @McpServer({ name, version: '1.0.0' })
  class CollectingServer {
    @Tool({ description: 'answers' })
    add() {
      collectIfAsked();
      return 'ok';
    }

    @Tool({ description: 'reports a step, then answers' })
    async step(ctx: Context) {
      collectIfAsked();
      await ctx.progress(1, 1);
      return 'ok';
    }
  }
  return { server: CollectingServer, collectNext: () => (collect = true) };
}

type Heap = v8.GCProfilerResult['statistics'][number]['afterGC'];

/** Bytes in use in the old generation's space for objects, in a GC profile's heap statistics. */
export function oldSpaceOf(heap: Heap): number {
  const space = heap.heapSpaceStatistics.find((s) => s.spaceName === 'old_space');
  if (!space || space.spaceUsedSize <= 0) throw new Error('no old_space in the GC profile');
  return space.spaceUsedSize;
}

function oldSpaceNow(): number {
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
  if (!space || space.space_used_size <= 0) throw new Error('no old_space in the heap statistics');
  return space.space_used_size;
}

/**
 * Runs `load` and returns every byte the old generation gained meanwhile outside mark-compacts,
 * promoted by the scavenges or allocated there directly (what the mark-compacts that landed freed
 * is added back), and how many scavenges ran.
 */
export async function oldGenerationGain(load: () => Promise<void>): Promise<{ gained: number; scavenges: number }> {
  const profiler = new v8.GCProfiler();
  profiler.start();
  const from = oldSpaceNow();
  await load();
  const to = oldSpaceNow();
  let freed = 0;
  let scavenges = 0;
  for (const gcEvent of profiler.stop().statistics) {
    if (gcEvent.gcType === 'Scavenge') scavenges++;
    if (gcEvent.gcType === 'MarkSweepCompact') freed += oldSpaceOf(gcEvent.beforeGC) - oldSpaceOf(gcEvent.afterGC);
  }
  return { gained: to - from + freed, scavenges };
}

/** Calls `listener` with each line `stream` writes (stdout of a stdio app under test). */
export function onLines(stream: NodeJS.ReadableStream, listener: (line: string) => void): void {
  let buffered = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      listener(line);
    }
  });
}
