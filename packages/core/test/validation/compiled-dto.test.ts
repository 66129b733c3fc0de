import 'reflect-metadata';
import { Expose, Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  Equals,
  IsBoolean,
  IsDate,
  IsDefined,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Constructor, validateDto } from '../../src/index.js';
import { structuralSchema } from '../../src/schema/structural-schema.js';
import { DEFAULT_ARGUMENT_LIMITS } from '../../src/validation/argument-limits.js';
import { FALLBACK } from '../../src/validation/compiled-dto-runtime.js';
import { describeDto } from '../../src/validation/dto-descriptor.js';
import { compileShapeCheckWithAjv } from '../../src/validation/json-schema-validator.js';
import { type InputPlan, prepareArguments } from '../../src/validation/prepare-arguments.js';
import { compileGeneratedShapeCheck } from '../../src/validation/shape-check.js';
import { compileClosureShapeCheck } from '../../src/validation/shape-check-closures.js';

// Differential tests: the compiled path (describeDto(...).compiled) against class-transformer +
// class-validator themselves, through prepareArguments (limits, shape, then one or the other) and
// on the compiled function alone. Same accept/reject, same issues in the same order, and an
// instance of the same classes with the same keys in the same order.

enum State {
  Open = 'open',
  Closed = 'closed',
}
enum Level {
  Low = 1,
  High = 2,
}

class Flat {
  @IsInt()
  @Min(1)
  @Max(100)
  count!: number;

  @IsNumber({ maxDecimalPlaces: 2 })
  @IsPositive()
  price!: number;

  @IsString()
  @MinLength(3)
  @MaxLength(8)
  name!: string;

  @IsString()
  @Length(2, 4, { message: 'code is $value, not $constraint1..$constraint2 long' })
  code!: string;

  @IsString()
  @Matches(/^[a-z]+\/[a-z]+$/)
  @Matches(/^a/, { message: ({ value }) => `starts with ${String(value)[0]}` })
  repo!: string;

  @IsBoolean()
  flag!: boolean;
}

class Formats {
  @IsEmail()
  email!: string;

  @IsUrl()
  url!: string;

  @IsUUID('4')
  id!: string;

  @IsISO8601({ strict: true })
  day!: string;

  @IsOptional()
  @IsDate()
  @Type(() => Date)
  when?: Date;

  @IsOptional()
  @IsNotEmpty()
  @IsString()
  note?: string;
}

class Enums {
  @IsEnum(State)
  state!: State;

  @IsEnum(Level)
  level!: Level;

  @IsIn(['a', 'b', 3])
  pick!: string | number;

  @IsOptional()
  @IsEnum(State, { each: true })
  states?: State[];
}

class Lists {
  @IsString({ each: true })
  @MinLength(2, { each: true })
  @ArrayMaxSize(4)
  @ArrayMinSize(1)
  @ArrayUnique()
  tags!: string[];

  @IsOptional()
  @IsInt({ each: true })
  @Max(9, { each: true })
  digits?: number[];

  @IsOptional()
  @IsObject()
  meta?: Record<string, unknown>;
}

class Owner {
  @IsString()
  @MinLength(2)
  login!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  age?: number;
}

class Filter {
  @IsString()
  @IsIn(['label', 'author', 'state'])
  field!: string;

  @IsString()
  @MaxLength(20)
  value!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => Owner)
  by?: Owner;
}

class Search {
  @IsString()
  @Matches(/^[\w.-]+\/[\w.-]+$/)
  repo!: string;

  @IsString()
  @MinLength(3)
  @MaxLength(40)
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
  @ArrayMaxSize(3)
  @Type(() => Filter)
  filters: Filter[] = [];
}

@ValidatorConstraint({ name: 'even' })
class Even implements ValidatorConstraintInterface {
  validate(value: unknown) {
    return typeof value === 'number' && value % 2 === 0;
  }
  defaultMessage() {
    return '$property must be even, got $value';
  }
}

class Conditional {
  @IsBoolean()
  shipped!: boolean;

  @ValidateIf((o: Conditional) => o.shipped === true)
  @IsString()
  @MinLength(4)
  tracking?: string;

  @IsDefined()
  @IsInt()
  @Validate(Even)
  @Transform(({ value, obj }) => (typeof value === 'number' && (obj as { double?: boolean }).double ? value * 2 : value))
  amount!: number;

  @IsOptional()
  @IsBoolean()
  double?: boolean;

  // A transform may answer undefined: plainToInstance then sets the property to undefined, default or not.
  @IsOptional()
  @IsString()
  @Transform(({ value }) => (value === '' ? undefined : value))
  nickname?: string = 'anon';

  @IsOptional()
  @IsString({ message: 'label must be text', validateIf: (_o: unknown, v: unknown) => v !== 'skip-me' })
  @MinLength(2, { validateIf: (o: Conditional) => o.shipped })
  label?: string;
}

class Tree {
  @IsString()
  @MinLength(1)
  name!: string;

  @IsOptional()
  @ValidateNested({ each: true })
  @ArrayMaxSize(3)
  @Type(() => Tree)
  children?: Tree[];
}

class Page {
  @IsOptional()
  @IsInt()
  @Min(1)
  page = 1;

  @IsOptional()
  @IsString()
  @MaxLength(4)
  cursor?: string;

  @Allow()
  hint?: unknown;
}

// Inherited metadata (and a redeclared property with its own constraints), @Allow, @Equals,
// @IsNotEmpty and a Date list: what class-validator merges from the parent, the compiled code must too.
class PagedSearch extends Page {
  @IsString()
  @IsNotEmpty()
  @MaxLength(6)
  override cursor?: string;

  @Equals('v1')
  version!: string;

  @IsOptional()
  @IsDate({ each: true })
  @Type(() => Date)
  since?: Date[];
}

/** A structural picture of a value: classes, key order, Dates and primitive types included. */
function picture(value: unknown): unknown {
  if (value instanceof Date) return { date: value.getTime() };
  if (Array.isArray(value)) return { array: value.map(picture) };
  if (value !== null && typeof value === 'object') {
    return { class: value.constructor?.name, entries: Object.entries(value).map(([k, v]) => [k, picture(v)]) };
  }
  return { [typeof value]: value };
}

async function settle(run: () => Promise<unknown> | unknown): Promise<unknown> {
  try {
    const outcome = (await run()) as { ok: boolean; value?: unknown; issues?: unknown };
    return outcome.ok ? { ok: true, value: picture(outcome.value) } : outcome;
  } catch (error) {
    return { threw: String(error) };
  }
}

// undefined too: JSON has none, but validateDto takes any value, and class-transformer treats it apart.
const wrong = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string(),
  fc.constant([]),
  fc.constant({}),
);
/** Mostly `valid`, sometimes a value of another type. */
const maybe = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: wrong });
const extra = fc.dictionary(fc.constantFrom('extra', 'x', 'toString', 'hasOwnProperty'), fc.anything(), { minKeys: 1, maxKeys: 1 });

/** All of `base`'s keys present; now and then one dropped, and now and then an unknown one added. */
function withExtra(base: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      base,
      fc.oneof({ weight: 8, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra }),
      fc.oneof({ weight: 6, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat(8) }),
    )
    .map(([a, b, drop]) => {
      const out: Record<string, unknown> = { ...a, ...b };
      const keys = Object.keys(a);
      if (drop >= 0 && keys.length > 0) delete out[keys[drop % keys.length] as string];
      return out;
    });
}

/** Mostly one of the valid values, sometimes a near miss of the right type. */
const pick = <T>(valid: readonly T[], near: fc.Arbitrary<unknown>) =>
  maybe(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...valid) }, { weight: 1, arbitrary: near }));
const record = (fields: Record<string, fc.Arbitrary<unknown>>) => withExtra(fc.record(fields, { noNullPrototype: true }));

const ownerArb = record({
  login: pick(['ada', 'li', 'octocat'], fc.string({ maxLength: 2 })),
  age: pick([0, 7, 40], fc.integer({ min: -3, max: 0 })),
});
const filterArb = record({
  field: pick(['label', 'author', 'state'], fc.constantFrom('other', '')),
  value: pick(['bug', '', 'good first issue'], fc.string({ minLength: 18, maxLength: 24 })),
  by: maybe(ownerArb),
});
const treeAt = (depth: number): fc.Arbitrary<Record<string, unknown>> =>
  record({
    name: pick(['a', 'root', 'leaf'], fc.constant('')),
    children: maybe(depth === 0 ? fc.constant<Record<string, unknown>[]>([]) : fc.array(treeAt(depth - 1), { maxLength: 4 })),
  });

const shapes: Array<{ name: string; dto: Constructor; input: fc.Arbitrary<Record<string, unknown>> }> = [
  {
    name: 'flat numbers and strings with bounds and patterns',
    dto: Flat,
    input: record({
      count: pick([1, 50, 100], fc.integer({ min: -5, max: 120 })),
      price: pick([0.01, 2.5, 49.99, 7], fc.oneof(fc.double({ min: -2, max: 50, noNaN: true }), fc.constantFrom(0, -1, 1.234))),
      name: pick(['abc', 'abcdefgh', 'name'], fc.string({ maxLength: 10 })),
      code: pick(['ab', 'abcd', 'xyz'], fc.string({ maxLength: 6 })),
      repo: pick(['a/b', 'ab/cd', 'abc/def'], fc.oneof(fc.constantFrom('b/c', 'A/b', 'a/B', 'a/'), fc.string({ maxLength: 6 }))),
      flag: maybe(fc.boolean()),
    }),
  },
  {
    name: 'emails, urls, uuids, dates',
    dto: Formats,
    input: record({
      email: pick(['ada@example.com', 'a.b+c@mail.example.org'], fc.oneof(fc.emailAddress(), fc.string({ maxLength: 8 }))),
      url: pick(
        ['https://example.com/a?b=c', 'example.com', 'http://localhost:8080'],
        fc.oneof(fc.webUrl(), fc.constantFrom('http://', 'ftp://x.y/z', 'no url')),
      ),
      id: pick(['0f5b1b2e-3c4d-4e5f-8a9b-0c1d2e3f4a5b'], fc.oneof(fc.uuid(), fc.string({ maxLength: 8 }))),
      day: pick(
        ['2026-02-28', '2024-02-29', '2026-12-01'],
        fc.oneof(fc.constantFrom('2026-02-30', '2026-13-01', '2026-1-1', '2025-02-29'), fc.string({ maxLength: 10 })),
      ),
      when: pick(
        ['2026-12-24T10:00:00Z', '2026-01-01T00:00:00.000+02:00'],
        fc.oneof(
          fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString()),
          fc.constantFrom('2026-02-30T00:00:00Z', 'Dec 24 2026'),
        ),
      ),
      note: pick(['x', 'note'], fc.constant('')),
    }),
  },
  {
    name: 'enums',
    dto: Enums,
    input: record({
      state: pick(['open', 'closed'], fc.constantFrom('Open', 'x')),
      level: pick([1, 2], fc.constantFrom(3, 'Low', 0)),
      pick: pick(['a', 'b', 3], fc.constantFrom('c', 4, '3')),
      states: maybe(fc.array(fc.constantFrom('open', 'closed', 'open', 'closed', 'nope'), { maxLength: 3 })),
    }),
  },
  {
    name: 'arrays with each, sizes and uniqueness',
    dto: Lists,
    input: record({
      tags: pick(
        [['ab'], ['ab', 'cd'], ['abc', 'de', 'fgh']],
        fc.array(fc.oneof(fc.constantFrom('ab', 'cd', 'x'), fc.string({ maxLength: 3 }), fc.integer()), { maxLength: 6 }),
      ),
      digits: pick([[], [1, 2, 9]], fc.array(fc.oneof(fc.integer({ min: -1, max: 12 }), fc.double(), fc.string()), { maxLength: 4 })),
      meta: maybe(fc.dictionary(fc.constantFrom('a', 'b', 'toString', 'valueOf'), fc.jsonValue(), { maxKeys: 3, noNullPrototype: true })),
    }),
  },
  {
    name: 'nested DTOs, defaults and @Transform (the search tool)',
    dto: Search,
    input: record({
      repo: pick(['a/b', 'octo/repo.js'], fc.constantFrom('no slash', '')),
      query: pick(['  bug  ', 'crash on start', 'abc'], fc.oneof(fc.constantFrom('ab', ' ab '), fc.string({ maxLength: 44 }))),
      limit: pick([1, 10, 50], fc.integer({ min: -1, max: 60 })),
      state: pick(['open', 'closed'], fc.constant('merged')),
      owner: maybe(ownerArb),
      filters: maybe(fc.array(maybe(filterArb), { maxLength: 4 })),
    }),
  },
  {
    name: '@ValidateIf, @IsDefined, a custom constraint, messages and transforms reading the object',
    dto: Conditional,
    input: record({
      shipped: maybe(fc.boolean()),
      tracking: pick(['1Z999', 'track-1'], fc.string({ maxLength: 4 })),
      amount: pick([2, 4, 0], fc.integer({ min: -4, max: 9 })),
      double: maybe(fc.boolean()),
      label: pick(['ok', 'label'], fc.constantFrom('skip-me', 'x', '')),
      nickname: pick(['', 'ada'], fc.constant(' ')),
    }),
  },
  { name: 'a DTO that nests itself', dto: Tree, input: treeAt(3) },
  {
    name: 'an inherited DTO, @Allow, @Equals, @IsNotEmpty, a list of dates',
    dto: PagedSearch,
    input: record({
      page: pick([1, 3], fc.integer({ min: -1, max: 1 })),
      cursor: pick(['abc', 'abcdef'], fc.constantFrom('', 'abcdefg')),
      hint: fc.oneof(fc.jsonValue(), fc.constant(undefined)),
      version: pick(['v1'], fc.constantFrom('v2', '')),
      since: pick([['2026-01-01T00:00:00Z'], []], fc.array(fc.constantFrom('2026-01-01T00:00:00Z', 'nope', 5), { maxLength: 3 })),
    }),
  },
];

describe('compiled DTO validation gives exactly what class-transformer + class-validator give', () => {
  for (const shape of shapes) {
    it(shape.name, async () => {
      const descriptor = describeDto(shape.dto);
      expect(descriptor.problems).toEqual([]);
      expect(descriptor.compiled).toBeTypeOf('function');
      const compiled: InputPlan = { kind: 'dto', dto: descriptor, limits: DEFAULT_ARGUMENT_LIMITS };
      const libraries: InputPlan = { kind: 'dto', dto: { ...descriptor, compiled: undefined }, limits: DEFAULT_ARGUMENT_LIMITS };
      let accepted = 0;
      let refused = 0;
      let handedBack = 0;
      await fc.assert(
        fc.asyncProperty(shape.input, async (input) => {
          // Each side gets its own copy: a transform may keep what it is given.
          const viaCompiled = await settle(() => prepareArguments(compiled, structuredClone(input)));
          const viaLibraries = await settle(() => prepareArguments(libraries, structuredClone(input)));
          expect(viaCompiled).toEqual(viaLibraries);
          if ((viaLibraries as { ok?: boolean }).ok) accepted++;
          else refused++;
          // Every payload, well shaped or not, is answered by the compiled code itself, not handed back.
          let answer: unknown;
          try {
            answer = descriptor.compiled?.(structuredClone(input));
          } catch {
            answer = 'threw, as the libraries did';
          }
          if (answer === FALLBACK) handedBack++;
        }),
        { numRuns: 2_000 },
      );
      // Both sides of the line are exercised, and the compiled code (not its fallback) answers.
      expect(accepted).toBeGreaterThan(50);
      expect(refused).toBeGreaterThan(50);
      expect(handedBack).toBe(0);
    });
  }
});

// Both forms of the shape check: generated code (the default) and closures (where code generation
// from strings is refused, as on Cloudflare Workers).
const shapeCheckForms = [
  ['generated', compileGeneratedShapeCheck],
  ['closures', compileClosureShapeCheck],
] as const;

for (const [form, compileOwnShapeCheck] of shapeCheckForms) {
  describe(`the compiled shape check (${form}) gives exactly what Ajv gives`, () => {
    for (const shape of shapes) {
      it(shape.name, () => {
        const schema = structuralSchema(describeDto(shape.dto).schema);
        const own = compileOwnShapeCheck(schema);
        expect(own).toBeTypeOf('function');
        const ajv = compileShapeCheckWithAjv(schema);
        let accepted = 0;
        let refused = 0;
        // The DTO's own payloads (mostly near the shape), and anything at all.
        const input = fc.oneof({ weight: 4, arbitrary: shape.input }, { weight: 1, arbitrary: fc.anything() });
        fc.assert(
          fc.property(input, (value) => {
            const answer = ajv(value);
            expect(own?.(value)).toEqual(answer);
            if (answer.ok) accepted++;
            else refused++;
          }),
          { numRuns: 3_000 },
        );
        expect(accepted).toBeGreaterThan(50);
        expect(refused).toBeGreaterThan(50);
      });
    }

    it('leaves to Ajv a schema it does not cover', () => {
      expect(compileOwnShapeCheck({ type: ['string', 'null'] })).toBeUndefined();
      expect(compileOwnShapeCheck({ type: 'object', additionalProperties: { type: 'string' } })).toBeUndefined();
      expect(compileOwnShapeCheck({ $ref: 'https://example.com/other.json' })).toBeUndefined();
      expect(compileOwnShapeCheck({ type: 'string', minLength: 2 })).toBeUndefined();
    });
  });
}

describe('the compiled path hands over to the libraries for what it does not mirror', () => {
  it('a DTO with @Expose is not compiled, and validates as before', async () => {
    class Renamed {
      @Expose({ name: 'full_name' })
      @IsString()
      @MinLength(2)
      fullName!: string;
    }
    const descriptor = describeDto(Renamed);
    expect(descriptor.compiled).toBeUndefined();
    expect(await validateDto(Renamed, { fullName: 'x' })).toEqual({
      ok: false,
      issues: [{ path: 'fullName', message: 'must be longer than or equal to 2 characters' }],
    });
  });

  it('a value that is not plain JSON (a Map given to validateDto) is decided by class-transformer', async () => {
    const descriptor = describeDto(Lists);
    expect(descriptor.compiled?.({ tags: ['ab'], meta: new Map([['a', 1]]) })).toBe(FALLBACK);
    expect(descriptor.compiled?.({ tags: ['ab'] })).toMatchObject({ ok: true });
  });
});
