import { describe, expect, it } from 'vitest';
import {
  boundaryAccepts,
  constraintsOf,
  FieldSpecError,
  formatFields,
  invalidCases,
  missingCase,
  parseFields,
  sampleValue,
  validArguments,
} from '../src/generate/field-spec.js';

describe('parseFields', () => {
  it('reads names, optionality, types, ranges and enum values', () => {
    const fields = parseFields(
      'city:string:1..64, days?:int:1..14, ratio?:number:..0.5, units?:enum:metric|imperial, raw?:boolean, note:string',
    );
    expect(fields).toEqual([
      { name: 'city', optional: false, type: 'string', min: 1, max: 64, description: 'City' },
      { name: 'days', optional: true, type: 'int', min: 1, max: 14, description: 'Days' },
      { name: 'ratio', optional: true, type: 'number', min: undefined, max: 0.5, description: 'Ratio' },
      { name: 'units', optional: true, type: 'enum', values: ['metric', 'imperial'], description: 'Units' },
      { name: 'raw', optional: true, type: 'boolean', description: 'Raw' },
      { name: 'note', optional: false, type: 'string', description: 'Note' },
    ]);
    expect(formatFields(fields)).toBe(
      'city:string:1..64, days?:int:1..14, ratio?:number:..0.5, units?:metric|imperial, raw?:boolean, note:string',
    );
  });

  it('reads string lists, dates, enums written as a|b|c and nested DTOs', () => {
    const fields = parseFields('tags?:string[]:1..5, due:date, kind:todo|idea, address:Address, stops?:Address[]');
    expect(fields).toEqual([
      { name: 'tags', optional: true, type: 'string[]', min: 1, max: 5, description: 'Tags' },
      { name: 'due', optional: false, type: 'date', description: 'Due' },
      { name: 'kind', optional: false, type: 'enum', values: ['todo', 'idea'], description: 'Kind' },
      { name: 'address', optional: false, type: 'dto', dto: { className: 'Address', list: false }, description: 'Address' },
      { name: 'stops', optional: true, type: 'dto', dto: { className: 'Address', list: true }, description: 'Stops' },
    ]);
    expect(formatFields(fields)).toBe('tags?:string[]:1..5, due:date, kind:todo|idea, address:Address, stops?:Address[]');
    expect(fields.map((field) => constraintsOf(field).map((c) => c.code))).toEqual([
      ['@IsArray()', '@IsString({ each: true })', '@ArrayMinSize(1)', '@ArrayMaxSize(5)'],
      ['@IsDate()', '@Type(() => Date)'],
      ["@IsIn(['todo', 'idea'])"],
      ['@ValidateNested()', '@Type(() => Address)'],
      ['@IsArray()', '@ValidateNested({ each: true })', '@Type(() => Address)'],
    ]);
  });

  it('treats a minimum length of 0 as no minimum', () => {
    expect(parseFields('s:string:0..10')[0]).toMatchObject({ min: undefined, max: 10 });
  });

  it.each([
    ['1city:string', '"1city:string": "1city" is not a valid property name.'],
    ['city:text', '"city:text": unknown type "text".'],
    ['days:int:1.5..3', 'field "days": "1.5" is not a whole number. Write the range as min..max, e.g. 1..64'],
    ['days:int:9..3', 'field "days": the range 9..3 is empty (min > max)'],
    ['days:int:1-3', 'field "days": "1-3" is not a range. Write min..max, min.. or ..max, e.g. 1..64'],
    ['u:enum', 'field "u": an enum needs its values, e.g. u:enum:metric|imperial'],
    ['b:boolean:1..2', 'field "b": a boolean takes no range'],
    ['a:string, a:int', 'the field "a" is listed twice'],
    [' , ', 'no fields given.'],
  ])('refuses %s', (text, message) => {
    expect(() => parseFields(text)).toThrow(FieldSpecError);
    expect(() => parseFields(text)).toThrow(message);
  });
});

describe('constraints and cases', () => {
  const fields = parseFields('city:string:1..64, days?:int:1..14, units?:enum:metric|imperial, raw?:boolean');

  it('writes the decorators', () => {
    expect(constraintsOf(fields[0] as never)).toEqual([
      { decorator: 'IsString', code: '@IsString()' },
      { decorator: 'Length', code: '@Length(1, 64)' },
    ]);
    expect(constraintsOf(fields[1] as never).map((c) => c.code)).toEqual(['@IsInt()', '@Min(1)', '@Max(14)']);
    expect(constraintsOf(fields[2] as never).map((c) => c.code)).toEqual(["@IsIn(['metric', 'imperial'])"]);
    expect(constraintsOf(parseFields('a:string:..9')[0] as never).map((c) => c.code)).toEqual(['@IsString()', '@MaxLength(9)']);
    expect(constraintsOf(parseFields('a:number:2..')[0] as never).map((c) => c.code)).toEqual(['@IsNumber()', '@Min(2)']);
  });

  it('picks sample values inside every limit', () => {
    expect(validArguments(fields)).toEqual({ city: 'example', days: 1, units: 'metric', raw: true });
    expect(sampleValue(parseFields('s:string:10..12')[0] as never)).toBe('examplexxx');
    expect(sampleValue(parseFields('s:string:..3')[0] as never)).toBe('exa');
    expect(sampleValue(parseFields('n:int:5..9')[0] as never)).toBe(5);
    expect(sampleValue(parseFields('n:number:-9..-2')[0] as never)).toBe(-2);
  });

  it('accepts each limit exactly', () => {
    expect(boundaryAccepts(fields).map((c) => [c.what, c.args])).toEqual([
      ['city at its minimum length (1)', { city: 'x', days: 1, units: 'metric', raw: true }],
      ['city at its maximum length (64)', { city: 'x'.repeat(64), days: 1, units: 'metric', raw: true }],
      ['days at its minimum (1)', { city: 'example', days: 1, units: 'metric', raw: true }],
      ['days at its maximum (14)', { city: 'example', days: 14, units: 'metric', raw: true }],
    ]);
  });

  it('rejects one step past each limit, a value outside the enum, and an unknown field', () => {
    expect(invalidCases(fields).map((c) => [c.what, c.args, c.lines])).toEqual([
      [
        'city shorter than 1 character',
        { city: '', days: 1, units: 'metric', raw: true },
        ['city: must be longer than or equal to 1 characters'],
      ],
      [
        'city longer than 64 characters',
        { city: 'x'.repeat(65), days: 1, units: 'metric', raw: true },
        ['city: must be shorter than or equal to 64 characters'],
      ],
      ['days below 1', { city: 'example', days: 0, units: 'metric', raw: true }, ['days: must not be less than 1']],
      ['days above 14', { city: 'example', days: 15, units: 'metric', raw: true }, ['days: must not be greater than 14']],
      [
        'units not one of its values',
        { city: 'example', days: 1, units: 'not-a-choice', raw: true },
        ['units: must be one of the following values: metric, imperial'],
      ],
      [
        'an unknown field',
        { city: 'example', days: 1, units: 'metric', raw: true, unexpected: true },
        ['unexpected: unknown property; remove it'],
      ],
    ]);
  });

  it('leaves out the first required field', () => {
    expect(missingCase(fields)).toEqual({ what: 'city missing', field: 'city', args: { days: 1, units: 'metric', raw: true } });
    expect(missingCase(parseFields('a?:int'))).toBeUndefined();
  });

  it('keeps every value a string for prompt arguments', () => {
    const cases = invalidCases(parseFields('text:string, tone?:enum:a|b'), { stringsOnly: true });
    expect(cases.every((c) => Object.values(c.args).every((v) => typeof v === 'string'))).toBe(true);
    expect(cases.map((c) => c.what)).toEqual(['tone not one of its values', 'an unknown field']);
  });
});
