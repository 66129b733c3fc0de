import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Type } from 'class-transformer';
import { IsDate, IsEmail, IsISO8601, IsOptional, IsUrl, IsUUID, Matches } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { createMcpApp, dtoToJsonSchema, Field, McpServer, Tool, validateDto } from '../../src/index.js';
import { connectInMemory } from '../support/clients.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

class Formats {
  @IsOptional() @IsDate() @Type(() => Date) due?: Date;
  @IsOptional() @IsISO8601({ strict: true }) @Matches(/^\d{4}-\d{2}-\d{2}$/) day?: string;
  @IsOptional() @IsISO8601() iso?: string;
  @IsOptional() @IsISO8601({ strict: true }) strictIso?: string;
  @IsOptional() @IsEmail() email?: string;
  @IsOptional() @IsUrl() url?: string;
  @IsOptional() @IsUUID() uuid?: string;
}

const CORPUS: Record<keyof Formats, string[]> = {
  due: [
    '2026-12-24T10:00:00Z',
    '2026-12-24t10:00:00z',
    '2026-12-24 10:00:00Z',
    '2026-12-24T10:00:00.123456+01:00',
    '2026-12-24T10:00:00+0100',
    '2026-12-24T10:00:00+01',
    '2026-12-24T10:00:00',
    '2026-12-24T23:59:60Z',
    '2024-02-29T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2000-02-29T12:00:00-05:30',
    '1900-02-29T12:00:00Z',
    '2026-12-24',
    'Dec 24 2026',
    '2026-13-01T00:00:00Z',
    '2026-12-24T24:00:00Z',
    '',
  ],
  day: [
    '2026-12-24',
    '2024-02-29',
    '2026-02-29',
    '2026-02-30',
    '2026-04-31',
    '2026-13-01',
    '20261224',
    '2026-12-24T10:00:00Z',
    '2026-W52-4',
  ],
  iso: ['2026-12-24', '2026-12-24T10:00:00Z', '2026-W52', '2026-358', '20261224T100000Z', 'nope'],
  strictIso: ['2026-12-24', '2026-12-24T10:00:00Z', '2026-02-30', '2026-W52-4'],
  email: ['a@example.com', 'a.b+c@example.co.uk', 'ü@example.com', '"quoted"@example.com', 'a@localhost', 'a@[127.0.0.1]', 'no-at-sign'],
  url: ['https://example.com/x?y=1', 'example.com', 'ftp://example.com', 'http://localhost:3000', 'not a url'],
  uuid: [
    '123e4567-e89b-12d3-a456-426614174000',
    '00000000-0000-0000-0000-000000000000',
    'urn:uuid:123e4567-e89b-12d3-a456-426614174000',
    'xyz',
  ],
};

describe('advertised formats agree with what the validator accepts', () => {
  const { schema, problems } = dtoToJsonSchema(Formats);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const advertised = ajv.compile(schema);

  it('advertises a Date as an RFC 3339 date-time string, a strict ISO day as a date, and no format it cannot back', () => {
    expect(problems).toEqual([]);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    // The format by name only: the strict pattern behind it (about 330 characters) is not advertised.
    expect(properties.due).toEqual({ type: 'string', format: 'date-time' });
    for (const [name, property] of Object.entries(properties)) {
      expect(String(property.pattern ?? '').length, `${name}: advertised pattern`).toBeLessThanOrEqual(40);
    }
    expect(properties.day).toMatchObject({ type: 'string', format: 'date' });
    expect(properties.iso).toEqual({ type: 'string' });
    expect(properties.strictIso).toEqual({ type: 'string' });
    expect(properties.uuid).toEqual({ type: 'string', format: 'uuid' });
  });

  for (const [property, values] of Object.entries(CORPUS)) {
    it(`${property}: every value the validator accepts, the advertised schema accepts`, async () => {
      const disagreements: string[] = [];
      for (const value of values) {
        const validator = (await validateDto(Formats, { [property]: value })).ok;
        const schemaOk = advertised({ [property]: value });
        if (validator && !schemaOk) disagreements.push(`${JSON.stringify(value)}: the validator accepts it, the schema does not`);
      }
      expect(disagreements).toEqual([]);
    });
  }

  it('a Date property accepts what its format promises, and the method gets a Date', async () => {
    const accepted = await Promise.all(CORPUS.due.map(async (value) => [value, (await validateDto(Formats, { due: value })).ok] as const));
    expect(accepted.filter(([, ok]) => ok).map(([value]) => value)).toEqual([
      '2026-12-24T10:00:00Z',
      '2026-12-24t10:00:00z',
      '2026-12-24 10:00:00Z',
      '2026-12-24T10:00:00.123456+01:00',
      '2026-12-24T10:00:00+0100',
      '2024-02-29T00:00:00Z',
      '2000-02-29T12:00:00-05:30',
    ]);
  });
});

class Reminder {
  @Field('When it is due')
  @IsDate()
  @Type(() => Date)
  due!: Date;
}

@McpServer({ name: 'dates', version: '1.0.0' })
class DateServer {
  @Tool({ description: 'Days from 2026-01-01 to the date.' })
  remind(input: Reminder) {
    return `${input.due instanceof Date} ${input.due.toISOString()}`;
  }
}

describe('a Date property through a real tool call', () => {
  it('is advertised as a date-time string, converted to a Date, and a non-RFC 3339 string is refused', async () => {
    const app = createMcpApp([DateServer]);
    const { client, close } = await connectInMemory(app);
    try {
      const { tools } = await client.listTools();
      expect((tools[0]?.inputSchema.properties as Record<string, unknown> | undefined)?.due).toMatchObject({
        type: 'string',
        format: 'date-time',
        description: 'When it is due',
      });
      const ok = await client.callTool({ name: 'remind', arguments: { due: '2026-12-24T10:00:00+01:00' } });
      expect(ok.content).toEqual([{ type: 'text', text: 'true 2026-12-24T09:00:00.000Z' }]);
      const bad = await client.callTool({ name: 'remind', arguments: { due: 'Dec 24 2026' } });
      expect(bad.isError).toBe(true);
      expect((bad.content as Array<{ text: string }>)[0]?.text).toBe(
        'Invalid arguments for tool "remind":\ndue: must be an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z',
      );
      expect(JSON.stringify(tools)).not.toContain('pattern');
    } finally {
      await close();
      await app.close();
    }
  });
});
