import { AssertionError } from 'node:assert';
import {
  ArmatureBuildError,
  type Constructor,
  type ContainerAdapter,
  type Context,
  createMcpApp,
  formatProblems,
  McpServer,
  Tool,
} from '@armature/core';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { textOf } from './text-of.js';

/** Thrown by `buildDto` when the data is rejected; `issues` are the `path: message` lines. */
export class DtoValidationError extends Error {
  constructor(
    readonly dto: string,
    readonly issues: readonly string[],
  ) {
    super(`${dto} rejected the data:\n${issues.map((line) => `  ${line}`).join('\n')}`);
    this.name = 'DtoValidationError';
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; issues: string[] };

interface Probe {
  check(plain: unknown): Promise<Outcome>;
}

const CALL_KEY = 'armature.dev/testing-call';
const probes = new WeakMap<Constructor, Promise<Probe>>();
let calls = 0;

/**
 * A one-tool app whose tool takes `dto` as its input, served in memory. Its arguments go through
 * exactly what a real call goes through (argument limits, class-transformer, class-validator, the
 * error text), so the helpers below can never disagree with the server.
 */
async function createProbe(dto: Constructor): Promise<Probe> {
  const received = new Map<string, unknown>();
  class DtoProbe {
    receive(input: unknown, ctx: Context): void {
      received.set(String(ctx.meta[CALL_KEY]), input);
    }
  }
  McpServer({ name: 'armature-dto-probe', version: '0.0.0' })(DtoProbe);
  const descriptor = Object.getOwnPropertyDescriptor(DtoProbe.prototype, 'receive') as PropertyDescriptor;
  Tool({ name: 'validate', description: `Validates ${dto.name}`, input: () => dto })(DtoProbe.prototype, 'receive', descriptor);

  const probeInstance = new DtoProbe();
  const container: ContainerAdapter = { createScope: () => ({ get: <T>() => probeInstance as T, dispose: () => undefined }) };
  let app: ReturnType<typeof createMcpApp>;
  try {
    app = createMcpApp(DtoProbe, { container });
  } catch (error) {
    if (!(error instanceof ArmatureBuildError)) throw error;
    // The probe is ours, not the user's: its problems are the DTO's.
    const problems = error.problems.map((p) => (p.where === 'DtoProbe.receive' ? { ...p, where: dto.name } : p));
    throw new Error(formatProblems(`${dto.name} cannot be used as a tool input`, 'in the DTO', problems));
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await app.createServer().connect(serverTransport);
  const client = new Client({ name: 'armature-dto-probe', version: '1.0.0' });
  await client.connect(clientTransport);

  return {
    async check(plain) {
      if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
        return { ok: false, issues: ['arguments must be a JSON object'] };
      }
      const id = String(++calls);
      const result = await client.callTool({ name: 'validate', arguments: plain as Record<string, unknown>, _meta: { [CALL_KEY]: id } });
      if (result.isError) return { ok: false, issues: textOf(result).split('\n').slice(1) };
      const value = received.get(id);
      received.delete(id);
      return { ok: true, value };
    },
  };
}

function probeFor(dto: Constructor): Promise<Probe> {
  let probe = probes.get(dto);
  if (!probe) {
    probe = createProbe(dto);
    probes.set(dto, probe);
    probe.catch(() => probes.delete(dto));
  }
  return probe;
}

/**
 * The `path: message` lines a tool would answer for `plain` as arguments of type `dto`; empty when
 * the data is valid.
 *
 * @example
 * ```ts
 * expect(await dtoIssues(ForecastInput, { city: '' })).toEqual(['city: must be longer than or equal to 1 characters']);
 * ```
 */
export async function dtoIssues(dto: Constructor, plain: unknown): Promise<string[]> {
  const outcome = await (await probeFor(dto)).check(plain);
  return outcome.ok ? [] : outcome.issues;
}

/**
 * The validated instance a tool method would receive for `plain` (defaults applied, nested DTOs
 * built). Throws `DtoValidationError` listing the `path: message` lines when the data is rejected.
 *
 * @example
 * ```ts
 * const input = await buildDto(ForecastInput, { city: 'Oslo' });
 * expect(input.days).toBe(3); // the default
 * ```
 */
export async function buildDto<T>(dto: Constructor<T>, plain: Record<string, unknown>): Promise<T> {
  const outcome = await (await probeFor(dto)).check(plain);
  if (!outcome.ok) throw new DtoValidationError(dto.name, outcome.issues);
  return outcome.value as T;
}

/**
 * A test framework's asymmetric matcher (vitest's and jest's `expect.stringContaining(...)`,
 * `expect.stringMatching(...)`, `expect.arrayContaining(...)`): anything with `asymmetricMatch`.
 */
export interface AsymmetricMatcher {
  asymmetricMatch(other: unknown): boolean;
}

const isMatcher = (value: unknown): value is AsymmetricMatcher =>
  typeof value === 'object' && value !== null && typeof (value as AsymmetricMatcher).asymmetricMatch === 'function';

const lineMatches = (line: string, expected: string | AsymmetricMatcher): boolean =>
  isMatcher(expected) ? expected.asymmetricMatch(line) : line === expected;

/**
 * Asserts that `plain` is rejected with exactly these `path: message` lines, in order. Each line
 * may be an asymmetric matcher (`expect.stringContaining('days: ')`), and so may the whole list
 * (`expect.arrayContaining([...])`). Throws an `AssertionError` (shown as a diff by vitest, jest
 * and node:test) otherwise.
 *
 * @example
 * ```ts
 * await expectDtoRejects(ForecastInput, { city: 'Oslo', days: 20, extra: 1 }, [
 *   'days: must not be greater than 14',
 *   expect.stringMatching(/^extra: /),
 * ]);
 * ```
 */
export async function expectDtoRejects(
  dto: Constructor,
  plain: unknown,
  expected: readonly (string | AsymmetricMatcher)[] | AsymmetricMatcher,
): Promise<void> {
  const outcome = await (await probeFor(dto)).check(plain);
  if (outcome.ok) {
    throw new AssertionError({
      message: `expected ${dto.name} to reject ${JSON.stringify(plain)}, but it accepted it`,
      actual: [],
      expected: isMatcher(expected) ? expected : [...expected],
      operator: 'expectDtoRejects',
    });
  }
  const same = isMatcher(expected)
    ? expected.asymmetricMatch(outcome.issues)
    : outcome.issues.length === expected.length && outcome.issues.every((line, i) => lineMatches(line, expected[i] as string));
  if (!same) {
    throw new AssertionError({
      message: `${dto.name} rejected ${JSON.stringify(plain)} with other lines than expected`,
      actual: outcome.issues,
      expected: isMatcher(expected) ? expected : [...expected],
      operator: 'expectDtoRejects',
    });
  }
}
