import { AssertionError } from 'node:assert';
import { Field } from '@armature/core';
import { Type } from 'class-transformer';
import { IsDate, IsInt, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { buildDto, DtoValidationError, dtoIssues, expectDtoRejects } from '../src/index.js';

class Place {
  @IsString()
  @Length(2, 2)
  country!: string;
}

class ForecastInput {
  @Field('City name')
  @IsString()
  @Length(1, 64)
  city!: string;

  @IsInt()
  @Min(1)
  @Max(14)
  days: number = 3;

  @IsOptional()
  @ValidateNested()
  @Type(() => Place)
  place?: Place;
}

describe('buildDto', () => {
  it('returns the instance a tool method receives: defaults applied, nested DTOs built', async () => {
    const input = await buildDto(ForecastInput, { city: 'Oslo', place: { country: 'NO' } });
    expect(input).toBeInstanceOf(ForecastInput);
    expect(input.days).toBe(3);
    expect(input.place).toBeInstanceOf(Place);
  });

  it('throws DtoValidationError with the path: message lines', async () => {
    const error = await buildDto(ForecastInput, { city: '', place: { country: 'NOR' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DtoValidationError);
    expect((error as DtoValidationError).issues).toEqual([
      'city: must be longer than or equal to 1 characters',
      'place.country: must be shorter than or equal to 2 characters',
    ]);
    expect((error as Error).message).toBe(
      'ForecastInput rejected the data:\n  city: must be longer than or equal to 1 characters\n  place.country: must be shorter than or equal to 2 characters',
    );
  });

  it('handles concurrent calls of the same DTO', async () => {
    const inputs = await Promise.all(Array.from({ length: 20 }, (_, i) => buildDto(ForecastInput, { city: `c${i}`, days: (i % 14) + 1 })));
    expect(inputs.map((input) => input.city)).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`));
  });
});

describe('dtoIssues', () => {
  it('is empty for valid data and lists every problem otherwise, as a tool would answer', async () => {
    expect(await dtoIssues(ForecastInput, { city: 'Oslo' })).toEqual([]);
    expect(await dtoIssues(ForecastInput, { city: '', days: 0 })).toEqual([
      'city: must be longer than or equal to 1 characters',
      'days: must not be less than 1',
    ]);
    expect(await dtoIssues(ForecastInput, { city: 'Oslo', extra: 1 })).toEqual(['extra: unknown property; remove it']);
    expect(await dtoIssues(ForecastInput, [1, 2])).toEqual(['arguments must be a JSON object']);
  });

  it('says when a class cannot be a tool input at all', async () => {
    class NotADto {
      name!: string;
    }
    await expect(dtoIssues(NotADto, {})).rejects.toThrow(
      'NotADto cannot be used as a tool input: 1 problem in the DTO.\n' +
        '  1. NotADto: DTO NotADto has no class-validator decorators, so no argument could be validated [ARM205]\n' +
        '     Fix: decorate each property, e.g. `@IsString() name!: string;` (use `@Allow()` to accept any value)',
    );
  });
});

class Reminder {
  @Field('When it is due')
  @IsDate()
  @Type(() => Date)
  due!: Date;
}

describe('a Date property', () => {
  const line = 'due: must be an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z';

  it('reads the same date-time line from dtoIssues and expectDtoRejects, not a regular expression', async () => {
    for (const bad of ['Dec 24 2026', '2026-02-30T10:00:00Z', '2026-12-24']) {
      expect(await dtoIssues(Reminder, { due: bad })).toEqual([line]);
      await expectDtoRejects(Reminder, { due: bad }, [line]);
    }
    expect(await dtoIssues(Reminder, { due: '2026-01-31T09:00:00Z' })).toEqual([]);
  });
});

describe('expectDtoRejects', () => {
  it('takes vitest asymmetric matchers, per line and for the whole list', async () => {
    const plain = { city: 'Oslo', days: 20, extra: 1 };
    await expectDtoRejects(ForecastInput, plain, [expect.stringMatching(/^extra: /), expect.stringContaining('greater than 14')]);
    await expectDtoRejects(ForecastInput, plain, expect.arrayContaining(['extra: unknown property; remove it']));
    const wrong = await expectDtoRejects(ForecastInput, plain, [
      'extra: unknown property; remove it',
      expect.stringContaining('smaller'),
    ]).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(AssertionError);
    const list = await expectDtoRejects(ForecastInput, plain, expect.arrayContaining(['city: x'])).catch((e: unknown) => e);
    expect(list).toBeInstanceOf(AssertionError);
  });

  it('passes when the lines match exactly', async () => {
    await expectDtoRejects(ForecastInput, { city: 'Oslo', days: 20 }, ['days: must not be greater than 14']);
  });

  it('throws an AssertionError with actual and expected lines otherwise', async () => {
    const wrong = await expectDtoRejects(ForecastInput, { city: 'Oslo', days: 20 }, ['days: too big']).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(AssertionError);
    expect(wrong).toMatchObject({ actual: ['days: must not be greater than 14'], expected: ['days: too big'] });
    const accepted = await expectDtoRejects(ForecastInput, { city: 'Oslo' }, ['x']).catch((e: unknown) => e);
    expect(accepted).toBeInstanceOf(AssertionError);
    expect((accepted as Error).message).toBe('expected ForecastInput to reject {"city":"Oslo"}, but it accepted it');
  });
});
