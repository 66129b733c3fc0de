// Cost of DTO validation per call, in process: Armature's argument check (validateDto: limits, the
// shape, then the compiled DTO function) against class-transformer + class-validator alone on the
// same `search`-like nested DTO, interleaved rounds, medians. Then the event-loop time of the largest
// payloads the default limits accept (issue 11 item 6). Run: `node --expose-gc dist/validation-bench.js`
// (add `--quick` for a short pass). Timing is wall time of a tight loop; on a shared machine, run it
// a few times and read the medians.
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { validateDto } from '@armature/core';
import {
  ArrayMaxSize,
  IsEnum,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
  validateSync,
} from 'class-validator';

// class-transformer is the copy @armature/core uses (one metadata storage): loaded from there.
const transformer = createRequire(createRequire(import.meta.url).resolve('@armature/core'))('class-transformer') as {
  Type(type: () => Function): PropertyDecorator;
  Transform(fn: (params: { value: unknown }) => unknown): PropertyDecorator;
  plainToInstance(cls: Function, plain: unknown, options: object): object;
};
const { Type, Transform, plainToInstance } = transformer;

enum State {
  Open = 'open',
  Closed = 'closed',
}

class Owner {
  @IsString()
  @MinLength(2)
  login!: string;
}

class Filter {
  @IsString()
  @IsIn(['label', 'author', 'state'])
  field!: string;

  @IsString()
  @MaxLength(100)
  value!: string;
}

class SearchInput {
  @IsString()
  @Matches(/^[\w.-]+\/[\w.-]+$/)
  repo!: string;

  @IsString()
  @MinLength(3)
  @MaxLength(200)
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  query!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit = 10;

  @IsOptional()
  @IsEnum(State)
  state: State = State.Open;

  @IsOptional()
  @ValidateNested()
  @Type(() => Owner)
  owner?: Owner;

  @IsOptional()
  @ValidateNested({ each: true })
  @ArrayMaxSize(10)
  @Type(() => Filter)
  filters: Filter[] = [];
}

const VALID = {
  repo: 'octo/hello-world',
  query: '  crash on start  ',
  limit: 20,
  state: 'closed',
  owner: { login: 'octocat' },
  filters: [
    { field: 'label', value: 'bug' },
    { field: 'author', value: 'ada' },
  ],
};
const INVALID = {
  ...VALID,
  query: 'ab',
  limit: 99,
  filters: [
    { field: 'label', value: 'bug' },
    { field: 'nope', value: 'x' },
  ],
};

const OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
};

const quick = process.argv.includes('--quick');

/** Process CPU µs per call (user + system): steadier than wall time when other processes share the cores. */
async function perCall(run: () => unknown, calls: number): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) await run();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / calls;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function compare(label: string, payload: object): Promise<void> {
  const sides: Record<string, () => unknown> = {
    'Armature validateDto (limits + shape + compiled)': () => validateDto(SearchInput, payload),
    'class-transformer + class-validator alone': () =>
      validateSync(plainToInstance(SearchInput, payload, { exposeDefaultValues: true }), OPTIONS),
  };
  const calls = quick ? 10_000 : 20_000;
  const rounds = quick ? 3 : 7;
  for (const run of Object.values(sides)) await perCall(run, 30_000); // warm-up: V8 optimises both sides first
  const results = new Map<string, number[]>(Object.keys(sides).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    // No forced GC between rounds: its concurrent sweeping would be billed to the next round's CPU time.
    for (const [name, run] of Object.entries(sides)) {
      results.get(name)?.push(await perCall(run, calls));
    }
  }
  console.log(`\n${label} (${rounds} interleaved rounds of ${calls} calls, median CPU µs per call)`);
  for (const [name, samples] of results) {
    console.log(
      `  ${name.padEnd(52)} ${median(samples).toFixed(2).padStart(7)} µs   (rounds: ${samples.map((s) => s.toFixed(2)).join(' ')})`,
    );
  }
}

class Big {
  @IsString()
  @MaxLength(1_048_576)
  a!: string;

  @IsString()
  @MaxLength(1_048_576)
  b!: string;

  @IsString()
  @MaxLength(1_048_576)
  c!: string;

  @IsString()
  @MinLength(1)
  d!: string;
}

class Row {
  @IsString()
  @MaxLength(1_000)
  name!: string;

  @IsInt()
  @Min(0)
  n!: number;
}

class Rows {
  @ValidateNested({ each: true })
  @ArrayMaxSize(10_000)
  @Type(() => Row)
  rows!: Row[];
}

async function eventLoop(label: string, dto: Function, payload: object): Promise<void> {
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  const times: number[] = [];
  let outcome: unknown;
  for (let i = 0; i < (quick ? 3 : 9); i++) {
    gc();
    const started = performance.now();
    outcome = await validateDto(dto as new () => object, payload);
    times.push(performance.now() - started);
  }
  const ok = (outcome as { ok: boolean }).ok;
  const issues = ok ? '' : ` (${JSON.stringify((outcome as { issues: unknown[] }).issues.slice(0, 1))})`;
  console.log(
    `  ${label.padEnd(52)} ${(bytes / 1_048_576).toFixed(2)} MiB  ${ok ? 'accepted' : 'refused '}  median ${median(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms${issues}`,
  );
}

async function main(): Promise<void> {
  console.log(
    `validation bench, Node ${process.version}, ${quick ? 'quick' : 'full'} pass; the machine may be shared: compare within one run`,
  );
  await compare('search-like nested DTO, valid payload', VALID);
  await compare('search-like nested DTO, invalid payload (3 issues)', INVALID);

  console.log(
    '\nlargest payloads the default limits accept, one validateDto call (= prepareArguments) each, wall ms the event loop is held',
  );
  const mib = 'x'.repeat(1_048_576);
  await eventLoop('four 1 MiB strings', Big, { a: mib, b: mib, c: mib, d: mib });
  const row = (i: number) => ({ name: `row ${i} ${'y'.repeat(990)}`, n: i });
  await eventLoop('4,000 nested rows of 1 KiB (12,000 values)', Rows, { rows: Array.from({ length: 4_000 }, (_, i) => row(i)) });
  await eventLoop('the same rows, one of them invalid', Rows, {
    rows: Array.from({ length: 4_000 }, (_, i) => (i === 3_999 ? { ...row(i), n: -1 } : row(i))),
  });
  await eventLoop('the same rows, one of the wrong type', Rows, {
    rows: Array.from({ length: 4_000 }, (_, i) => (i === 3_999 ? { ...row(i), n: 'x' } : row(i))),
  });
}

await main();
