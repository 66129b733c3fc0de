import { Transform, Type } from 'class-transformer';
import {
  IsInt,
  IsOptional,
  IsString,
  Max,
  MinLength,
  Validate,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ArmatureBuildError,
  createMcpApp,
  DEFAULT_ARGUMENT_LIMITS,
  Field,
  formatIssues,
  McpServer,
  Tool,
  validateDto,
} from '../src/index.js';
import { checkArgumentLimits } from '../src/validation/argument-limits.js';
import { validateInput } from '../src/validation/dto-validator.js';
import { type Connected, connectInMemory } from './support/clients.js';

class Owner {
  @IsString()
  @MinLength(2)
  login!: string;
}

class SearchIssues {
  @Field('owner/name')
  @IsString()
  repo!: string;

  @IsString()
  @MinLength(3)
  @Transform(({ value }) => {
    conversions++;
    return typeof value === 'string' ? value.trim() : value;
  })
  query!: string;

  @IsOptional()
  @IsInt()
  @Max(50)
  limit = 10;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => Owner)
  owners: Owner[] = [];
}

const calls: unknown[] = [];
/** How many times a `query` was converted (its @Transform ran): the limits must act before any. */
let conversions = 0;

@McpServer({ name: 'validation', version: '1.0.0' })
class ValidationServer {
  @Tool({ description: 'Search open issues' })
  search_issues(input: SearchIssues) {
    calls.push(input);
    return { query: input.query, limit: input.limit, owners: input.owners.length, isDto: input instanceof SearchIssues };
  }

  @Tool({
    description: 'raw',
    inputSchema: {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 1 },
        tag: { type: 'string', default: 'none' },
        contact: { type: 'string', format: 'email' },
      },
      required: ['n'],
      additionalProperties: false,
    },
  })
  raw(input: { n: number; tag: string; contact?: string }) {
    calls.push(input);
    return `${input.n}:${input.tag}`;
  }

  @Tool({ description: 'no arguments' })
  nothing() {
    calls.push('nothing');
    return 'ok';
  }
}

let connection: Connected | undefined;
afterEach(async () => {
  calls.length = 0;
  await connection?.close();
  connection = undefined;
});

async function call(name: string, args: Record<string, unknown>) {
  connection ??= await connectInMemory(createMcpApp(ValidationServer));
  return connection.client.callTool({ name, arguments: args });
}

function textOf(result: Awaited<ReturnType<typeof call>>): string {
  return (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');
}

describe('arguments are validated before the handler runs', () => {
  it('hands the handler a DTO instance with defaults and @Transform applied', async () => {
    const result = await call('search_issues', { repo: 'a/b', query: '  bug  ' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ query: 'bug', limit: 10, owners: 0, isDto: true });
    expect(calls).toHaveLength(1);
  });

  it('answers a tool error naming each bad field, and never calls the handler', async () => {
    const result = await call('search_issues', { repo: 'a/b', query: 'ab', limit: 99 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Invalid arguments for tool "search_issues":\nquery: must be longer than or equal to 3 characters\nlimit: must not be greater than 50',
    );
    expect(calls).toEqual([]);
  });

  it('names nested fields with dotted paths', async () => {
    const result = await call('search_issues', { repo: 'a/b', query: 'bug', owners: [{ login: 'ok' }, { login: 'x' }] });
    expect(textOf(result)).toBe(
      'Invalid arguments for tool "search_issues":\nowners.1.login: must be longer than or equal to 2 characters',
    );
  });

  it('rejects unknown properties, also nested ones', async () => {
    const result = await call('search_issues', { repo: 'a/b', query: 'bug', owners: [{ login: 'ok', admin: true }], sort: 'asc' });
    expect(textOf(result)).toBe(
      'Invalid arguments for tool "search_issues":\nsort: unknown property; remove it\nowners.0.admin: unknown property; remove it',
    );
    expect(calls).toEqual([]);
  });

  it('names every problem at once: an unknown property and two bound violations give three lines', async () => {
    const result = await call('search_issues', { repo: 'a/b', query: 'ab', limit: 99, extra: true });
    expect(textOf(result)).toBe(
      'Invalid arguments for tool "search_issues":\n' +
        'extra: unknown property; remove it\n' +
        'query: must be longer than or equal to 3 characters\n' +
        'limit: must not be greater than 50',
    );
    expect(calls).toEqual([]);
  });

  it('reports a missing field, a wrong type and a constraint failure together, one line each', async () => {
    const result = await call('search_issues', { query: 'ab', limit: 'many', owners: [{ login: 'x' }] });
    expect(textOf(result)).toBe(
      'Invalid arguments for tool "search_issues":\n' +
        'repo: is required\n' +
        'limit: must be integer\n' +
        'query: must be longer than or equal to 3 characters\n' +
        'owners.0.login: must be longer than or equal to 2 characters',
    );
  });

  it('does no implicit type conversion', async () => {
    const result = await call('search_issues', { repo: 'a/b', query: 'bug', limit: '5' });
    expect(textOf(result)).toBe('Invalid arguments for tool "search_issues":\nlimit: must be integer');
  });

  it('reports missing required fields', async () => {
    const result = await call('search_issues', { query: 'bug' });
    expect(textOf(result)).toBe('Invalid arguments for tool "search_issues":\nrepo: is required');
  });

  it('validates raw-schema tools with the hand-written schema, applying its defaults', async () => {
    expect(textOf(await call('raw', { n: 2 }))).toBe('2:none');
    const bad = await call('raw', { n: 0, extra: 1 });
    expect(textOf(bad)).toBe('Invalid arguments for tool "raw":\nextra: unknown property; remove it\nn: must be >= 1');
    expect(textOf(await call('raw', {}))).toBe('Invalid arguments for tool "raw":\nn: is required');
  });

  it('checks the formats of a hand-written schema (ajv-formats, loaded for the first such schema)', async () => {
    expect(textOf(await call('raw', { n: 1, contact: 'ada@example.com' }))).toBe('1:none');
    expect(textOf(await call('raw', { n: 1, contact: 'ada' }))).toBe(
      'Invalid arguments for tool "raw":\ncontact: must match format "email"',
    );
  });

  it('rejects arguments given to a tool that takes none', async () => {
    expect(textOf(await call('nothing', {}))).toBe('ok');
    expect(textOf(await call('nothing', { x: 1 }))).toBe(
      'Invalid arguments for tool "nothing":\nx: unknown property; this tool takes no arguments',
    );
  });

  it('refuses prototype-polluting keys before class-transformer sees them', () => {
    // JSON.parse makes "__proto__" an own key; the SDK's own parsing usually drops it before us,
    // so the guard is checked on the value a transport could hand over.
    const args = JSON.parse('{"repo":"a/b","owners":[{"constructor":{"prototype":{"polluted":true}}}]}');
    expect(checkArgumentLimits(args, DEFAULT_ARGUMENT_LIMITS)).toEqual({
      path: 'owners.0.constructor',
      message: 'this property name is not allowed',
    });
    expect(checkArgumentLimits(JSON.parse('{"__proto__":{"x":1}}'), DEFAULT_ARGUMENT_LIMITS)).toEqual({
      path: '__proto__',
      message: 'this property name is not allowed',
    });
  });
});

describe('size, depth and key-count guards run before any conversion', () => {
  // How fast the refusal is (milliseconds, not the seconds class-validator would take) is
  // reliability figure 7, printed with its 50 ms event-loop target (32,000 keys, deep nesting):
  // here, that the limits answer before class-transformer converts anything.
  it('rejects a 32,000-key object before converting it', async () => {
    await call('search_issues', { repo: 'a/b', query: 'bug' });
    const before = conversions;
    expect(before, 'a valid call converts its query').toBeGreaterThan(0);
    const args: Record<string, unknown> = { repo: 'a/b', query: 'bug' };
    for (let i = 0; i < 32_000; i++) args[`k${i}`] = i;
    const result = await call('search_issues', args);
    expect(textOf(result)).toBe('Invalid arguments for tool "search_issues":\nobject has more than the limit of 1000 properties');
    expect(conversions).toBe(before);
    expect(calls).toHaveLength(1);
  });

  it('rejects a 100,000-deep nesting before converting it', async () => {
    await call('search_issues', { repo: 'a/b', query: 'bug' });
    const before = conversions;
    expect(before, 'a valid call converts its query').toBeGreaterThan(0);
    const deep = JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    const result = await call('search_issues', { repo: 'a/b', query: 'bug', owners: deep });
    expect(textOf(result)).toBe(
      `Invalid arguments for tool "search_issues":\nowners${'.a'.repeat(31)}: nesting is deeper than the limit of 32 levels`,
    );
    expect(conversions).toBe(before);
    expect(calls).toHaveLength(1);
  });

  it('rejects over-long arrays and strings', async () => {
    const result = await call('search_issues', { repo: 'a/b', query: 'bug', owners: new Array(10_001).fill(0) });
    expect(textOf(result)).toBe('Invalid arguments for tool "search_issues":\nowners: array has more than the limit of 10000 items');
    const long = await call('search_issues', { repo: 'x'.repeat(1_048_577), query: 'bug' });
    expect(textOf(long)).toBe('Invalid arguments for tool "search_issues":\nrepo: string is longer than the limit of 1048576 characters');
  });

  it('takes per-tool and app-wide limits', async () => {
    @McpServer({ name: 'limits', version: '1' })
    class Limited {
      @Tool({ description: 'd', limits: { maxObjectKeys: 2 } })
      small(input: Owner) {
        return input.login;
      }
      @Tool({ description: 'd' })
      other(input: Owner) {
        return input.login;
      }
    }
    const app = createMcpApp(Limited, { limits: { maxStringLength: 8 } });
    expect(app.definition.tools.get('small')?.limits).toMatchObject({ maxObjectKeys: 2, maxStringLength: 8 });
    connection = await connectInMemory(app);
    const result = await connection.client.callTool({ name: 'other', arguments: { login: 'abcdefghi' } });
    expect(textOf(result)).toBe('Invalid arguments for tool "other":\nlogin: string is longer than the limit of 8 characters');
    const keys = await connection.client.callTool({ name: 'small', arguments: { login: 'ab', a: 1, b: 2 } });
    expect(textOf(keys)).toBe('Invalid arguments for tool "small":\nobject has more than the limit of 2 properties');
  });
});

describe('validation agrees with the advertised schema (shape checked first)', () => {
  class Point {
    @IsInt()
    x!: number;
  }
  class Shapes {
    @IsOptional()
    @ValidateNested()
    @Type(() => Point)
    one?: Point;

    @IsOptional()
    @ValidateNested({ each: true })
    @Type(() => Point)
    many?: Point[];

    @IsOptional()
    @IsString()
    note?: string;

    @Field({ description: 'ids', items: 'integer' })
    @IsOptional()
    @IsInt({ each: true })
    ids?: number[];
  }
  @McpServer({ name: 'shapes', version: '1' })
  class ShapeServer {
    @Tool({ description: 'd' })
    shapes(input: Shapes) {
      return { one: input.one?.x ?? null, many: input.many?.length ?? null };
    }
  }

  it('refuses an array where an object is declared, an object where an array is, null for an optional string, and wrong item types', async () => {
    connection = await connectInMemory(createMcpApp(ShapeServer));
    const call = (args: Record<string, unknown>) => connection?.client.callTool({ name: 'shapes', arguments: args });
    expect(textOf((await call({ one: [{ x: 1 }] })) as never)).toBe('Invalid arguments for tool "shapes":\none: must be object');
    expect(textOf((await call({ many: { x: 1 } })) as never)).toBe('Invalid arguments for tool "shapes":\nmany: must be array');
    expect(textOf((await call({ note: null })) as never)).toBe('Invalid arguments for tool "shapes":\nnote: must be string');
    expect(textOf((await call({ ids: [1, 'two'] })) as never)).toBe('Invalid arguments for tool "shapes":\nids.1: must be integer');
    expect((await call({ one: { x: 1 }, many: [{ x: 2 }, { x: 3 }] }))?.structuredContent).toEqual({ one: 1, many: 2 });
  });

  it('reports at start-up a DTO field with an initial value but no validator, and a property whose type is unknown', () => {
    class Sneaky {
      @IsString()
      q!: string;
      internal = 5;
    }
    class Untyped {
      @MinLength(1)
      name!: string;
    }
    // What a DTO evaluated before reflect-metadata (or compiled by esbuild) looks like.
    Reflect.deleteMetadata('design:type', Untyped.prototype, 'name');
    @McpServer({ name: 'bad-dtos', version: '1' })
    class BadDtos {
      @Tool({ description: 'd' })
      a(input: Sneaky) {
        return input.q;
      }
      @Tool({ description: 'd' })
      b(input: Untyped) {
        return input.name;
      }
    }
    let problems: string[] = [];
    try {
      createMcpApp(BadDtos);
    } catch (error) {
      problems = (error as ArmatureBuildError).problems.map((p) => `${p.where}: ${p.message}`);
    }
    expect(problems).toEqual([
      'BadDtos.a: Sneaky.internal has an initial value but no class-validator decorator, so every call would be refused for it',
      'BadDtos.b: the type of Untyped.name is unknown: no type validator, and no design:type metadata (the file was compiled without emitDecoratorMetadata, e.g. by tsx/esbuild, or evaluated before reflect-metadata was loaded)',
    ]);
  });

  it('words { each: true } messages without repeating the name', async () => {
    class Tags {
      @IsString({ each: true })
      @MinLength(2, { each: true })
      tags!: string[];
    }
    @McpServer({ name: 'each', version: '1' })
    class EachServer {
      @Tool({ description: 'd' })
      tag(input: Tags) {
        return input.tags.join(',');
      }
    }
    connection = await connectInMemory(createMcpApp(EachServer));
    const result = await connection.client.callTool({ name: 'tag', arguments: { tags: ['ok', 'x'] } });
    expect(textOf(result)).toBe('Invalid arguments for tool "tag":\ntags: each value must be longer than or equal to 2 characters');
  });
});

describe('class-validator behind the shape check', () => {
  // The shape check refuses most of these first in a real call; these pin the class-validator
  // options themselves, which would otherwise be masked.
  it('forbids unknown properties and converts nothing implicitly', async () => {
    const unknown = await validateInput(SearchIssues, { repo: 'a/b', query: 'bug', sort: 'asc' }, false);
    expect(unknown.ok ? [] : unknown.issues).toEqual([{ path: 'sort', message: 'unknown property; remove it' }]);
    const stringly = await validateInput(SearchIssues, { repo: 'a/b', query: 'bug', limit: '5' }, false);
    expect(stringly.ok ? [] : stringly.issues).toEqual([
      { path: 'limit', message: 'must not be greater than 50' },
      { path: 'limit', message: 'must be an integer number' },
    ]);
  });
});

describe('validateDto: the same checks as a tool call, outside one', () => {
  it('returns the instance or the path: message issues', async () => {
    const ok = await validateDto(SearchIssues, { repo: 'a/b', query: 'bug' });
    expect(ok.ok && ok.value instanceof SearchIssues && ok.value.limit).toBe(10);
    const bad = await validateDto(SearchIssues, { repo: 'a/b', query: 'x', extra: 1 });
    expect(bad.ok ? [] : formatIssues('Invalid:', bad.issues)).toBe(
      'Invalid:\nextra: unknown property; remove it\nquery: must be longer than or equal to 3 characters',
    );
    const shape = await validateDto(SearchIssues, { repo: ['a'], query: 'bug' });
    expect(shape.ok ? [] : shape.issues).toEqual([{ path: 'repo', message: 'must be string' }]);
  });
});

describe('asynchronous custom validators', () => {
  it('are awaited (the synchronous fast path is only taken when no constraint is async)', async () => {
    @ValidatorConstraint({ name: 'freeUsername', async: true })
    class FreeUsername implements ValidatorConstraintInterface {
      async validate(value: unknown) {
        await new Promise((r) => setTimeout(r, 5));
        return value !== 'taken';
      }
      defaultMessage() {
        return 'is already taken';
      }
    }
    class Signup {
      @IsString()
      @Validate(FreeUsername)
      username!: string;
    }
    @McpServer({ name: 'async-validation', version: '1' })
    class SignupServer {
      @Tool({ description: 'd' })
      signup(input: Signup) {
        return `welcome ${input.username}`;
      }
    }
    connection = await connectInMemory(createMcpApp(SignupServer));
    expect(textOf(await connection.client.callTool({ name: 'signup', arguments: { username: 'taken' } }))).toBe(
      'Invalid arguments for tool "signup":\nusername: is already taken',
    );
    expect(textOf(await connection.client.callTool({ name: 'signup', arguments: { username: 'ada' } }))).toBe('welcome ada');
  });
});
