// The server under test: one @McpServer class with a tool per figure. Everything it does is
// counted in `counters`, which the child process reports to the script over IPC: the script
// never trusts its own view of the server (figures 2, 4 and 5 compare both sides).
import { Context, McpServer, Tool } from '@armature/core';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';

export interface CallRecord {
  /** Times the method started for this request id. */
  starts: number;
  /** Times `ctx.signal` fired an `abort` event for it. */
  aborts: number;
  /** The method returned (after its sleep, whether or not it was cancelled). */
  done: boolean;
}

export const counters = {
  /** Server-class instances built (one per DI scope) and disposed (`destroy()` called by the scope). */
  constructed: 0,
  disposed: 0,
  /** `flaky` calls that threw, by kind. */
  thrown: 0,
  /** Errors the app reported through `onError`. */
  reported: 0,
  /** `hang` calls started, and how many of their signals fired. */
  hangStarted: 0,
  hangAborted: 0,
  /** `flood` calls that sent all their notifications (figure 10), and the longest one's own loop in ms. */
  floodsDone: 0,
  floodMs: 0,
  /** `slow` calls by JSON-RPC id (figure 5). */
  calls: new Map<string, CallRecord>(),
};

export function resetCounters(): void {
  counters.constructed = 0;
  counters.disposed = 0;
  counters.thrown = 0;
  counters.reported = 0;
  counters.hangStarted = 0;
  counters.hangAborted = 0;
  counters.floodsDone = 0;
  counters.floodMs = 0;
  counters.calls.clear();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export class EchoInput {
  @IsString()
  token!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(10_000)
  delayMs?: number;
}

/** The ways a handler can fail (figure 2): sync and async, Error and non-Error values. */
export const FAILURE_KINDS = [
  'sync-error',
  'async-error',
  'sync-null',
  'async-null',
  'sync-undefined',
  'async-undefined',
  'sync-string',
  'async-number',
  'sync-object',
  'rejected-promise',
  'error-without-message',
  'async-after-timer',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export class FlakyInput {
  @IsInt()
  i!: number;

  @IsOptional()
  @IsString()
  fail?: string;
}

export class SlowInput {
  @IsInt()
  @Min(0)
  @Max(10_000)
  ms!: number;

  /** Whether the method stops early when its signal fires (half of them ignore it and run on). */
  @IsBoolean()
  obey!: boolean;
}

export class Item {
  @IsInt()
  id!: number;

  @IsString()
  name!: string;

  @IsNumber()
  price!: number;

  @IsArray()
  @IsString({ each: true })
  tags!: string[];
}

export class IngestInput {
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Item)
  items?: Item[];

  @IsOptional()
  @IsString()
  note?: string;
}

export class FloodInput {
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  count!: number;

  @IsIn(['progress', 'log'])
  kind!: 'progress' | 'log';

  /** Whether each notification is awaited (the handler then waits for a client that is not reading). */
  @IsBoolean()
  wait!: boolean;
}

function fail(kind: string): unknown {
  counters.thrown++;
  switch (kind as FailureKind) {
    case 'sync-error':
      throw new Error('sync failure');
    case 'async-error':
      return (async () => {
        await Promise.resolve();
        throw new Error('async failure');
      })();
    case 'sync-null':
      throw null;
    case 'async-null':
      return (async () => {
        await Promise.resolve();
        throw null;
      })();
    case 'sync-undefined':
      throw undefined;
    case 'async-undefined':
      return (async () => {
        await Promise.resolve();
        throw undefined;
      })();
    case 'sync-string':
      throw 'a thrown string';
    case 'async-number':
      return (async () => {
        throw 42;
      })();
    case 'sync-object':
      throw { code: 'E_OBJECT', detail: [1, 2, 3] };
    case 'rejected-promise':
      return Promise.reject(new TypeError('rejected promise'));
    case 'error-without-message':
      throw new RangeError();
    case 'async-after-timer':
      return sleep(1).then(() => {
        throw new Error('failure after a timer');
      });
    default:
      throw new Error(`unknown failure kind ${kind}`);
  }
}

// #region server-under-test
@McpServer({ name: 'reliability', version: '1.0.0' })
export class ReliabilityServer {
  constructor() {
    counters.constructed++;
  }

  /** Called by the DI scope when it is disposed. */
  destroy(): void {
    counters.disposed++;
  }

  @Tool({ description: 'Answers with the token it was given, after an optional delay' })
  async echo(input: EchoInput) {
    if (input.delayMs) await sleep(input.delayMs);
    return input.token;
  }

  @Tool({ description: 'Answers i, or fails the way `fail` says' })
  flaky(input: FlakyInput) {
    if (input.fail) return fail(input.fail);
    return String(input.i);
  }

  @Tool({ description: 'Never answers' })
  hang(ctx: Context) {
    counters.hangStarted++;
    ctx.signal.addEventListener('abort', () => counters.hangAborted++, { once: true });
    return new Promise(() => undefined);
  }

  @Tool({ description: 'Sleeps ms, stopping early on cancellation when obey is true' })
  async slow(input: SlowInput, ctx: Context) {
    const key = String(ctx.requestId);
    let record = counters.calls.get(key);
    if (!record) {
      record = { starts: 0, aborts: 0, done: false };
      counters.calls.set(key, record);
    }
    const mine = record;
    mine.starts++;
    ctx.signal.addEventListener('abort', () => mine.aborts++);
    if (input.obey) await abortableSleep(input.ms, ctx.signal);
    else await sleep(input.ms);
    mine.done = true;
    return 'done';
  }

  @Tool({ description: 'Sends count progress notifications or log lines (figure 10: a client that does not read)' })
  async flood(input: FloodInput, ctx: Context) {
    const started = performance.now();
    for (let i = 1; i <= input.count; i++) {
      const sent = input.kind === 'progress' ? ctx.progress(i, input.count) : ctx.log.info(`line ${i}`);
      if (input.wait) await sent;
    }
    counters.floodMs = Math.max(counters.floodMs, performance.now() - started);
    counters.floodsDone++;
    return `sent ${input.count}`;
  }

  @Tool({ description: 'Takes a list of items (DTO-validated) and answers how many' })
  ingest(input: IngestInput) {
    return `${input.items?.length ?? 0} items`;
  }

  @Tool({
    description: 'Takes any object (raw JSON Schema) and answers its number of keys',
    inputSchema: { type: 'object', properties: { items: { type: 'array', items: { type: 'object' } } } },
  })
  ingest_raw(input: Record<string, unknown>) {
    return `${Object.keys(input).length} keys`;
  }
}
// #endregion server-under-test
