import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { describe, expect, it } from 'vitest';
import { createMcpApp, dtoToJsonSchema, Field, McpServer, Tool } from '../src/index.js';

enum Color {
  Red = 'red',
  Green = 'green',
}
enum Level {
  Low = 1,
  High = 2,
}

class Address {
  @Field('Street and number')
  @IsString()
  @MaxLength(200)
  street!: string;

  @IsString()
  @Matches(/^\d{4,5}$/)
  zip!: string;
}

class Tag {
  @IsString()
  @Length(1, 20)
  label!: string;
}

class Order {
  @Field({ description: 'Customer e-mail', examples: ['a@b.c'] })
  @IsEmail()
  email!: string;

  @IsInt()
  @Min(1)
  @Max(99)
  quantity!: number;

  @IsNumber()
  @Min(0.5)
  price!: number;

  @IsOptional()
  @IsString()
  @MinLength(2)
  note?: string;

  @IsEnum(Color)
  color: Color = Color.Red;

  @IsEnum(Level)
  level!: Level;

  @IsIn(['fast', 'slow'])
  shipping!: string;

  @IsBoolean()
  gift = false;

  @IsUrl()
  homepage!: string;

  @IsUUID()
  id!: string;

  @ValidateNested()
  @Type(() => Address)
  address!: Address;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @ValidateNested({ each: true })
  @Type(() => Tag)
  tags!: Tag[];

  @Field({ description: 'Free-form labels', items: 'string' })
  @IsOptional()
  @IsString({ each: true })
  labels: string[] = [];
}

describe('DTO -> JSON Schema 2020-12', () => {
  it('describes every supported constraint, nested DTOs under $defs, with required and defaults', () => {
    const { schema, problems } = dtoToJsonSchema(Order);
    expect(problems).toEqual([]);
    expect(schema).toEqual({
      type: 'object',
      properties: {
        email: { type: 'string', description: 'Customer e-mail', examples: ['a@b.c'] },
        quantity: { type: 'integer', minimum: 1, maximum: 99 },
        price: { type: 'number', minimum: 0.5 },
        note: { type: 'string', minLength: 2 },
        color: { type: 'string', enum: ['red', 'green'], default: 'red' },
        level: { type: 'integer', enum: [1, 2] },
        shipping: { type: 'string', enum: ['fast', 'slow'] },
        gift: { type: 'boolean', default: false },
        homepage: { type: 'string' },
        id: { type: 'string', format: 'uuid' },
        address: { $ref: '#/$defs/Address' },
        tags: { type: 'array', minItems: 1, maxItems: 5, items: { $ref: '#/$defs/Tag' } },
        labels: { type: 'array', items: { type: 'string' }, description: 'Free-form labels', default: [] },
      },
      required: ['email', 'quantity', 'price', 'level', 'shipping', 'homepage', 'id', 'address', 'tags'],
      additionalProperties: false,
      $defs: {
        Address: {
          type: 'object',
          properties: {
            street: { type: 'string', maxLength: 200, description: 'Street and number' },
            zip: { type: 'string', pattern: '^\\d{4,5}$' },
          },
          required: ['street', 'zip'],
          additionalProperties: false,
        },
        Tag: {
          type: 'object',
          properties: { label: { type: 'string', minLength: 1, maxLength: 20 } },
          required: ['label'],
          additionalProperties: false,
        },
      },
    });
  });

  it('keeps same-named DTO classes from different files apart', () => {
    // Two modules each declaring `class Address`: same name, different classes.
    const fromBilling = (() => {
      class Address {
        @IsString()
        iban!: string;
      }
      return Address;
    })();
    const fromShipping = (() => {
      class Address {
        @IsString()
        street!: string;
      }
      return Address;
    })();
    class Checkout {
      @ValidateNested()
      @Type(() => fromBilling)
      billing!: InstanceType<typeof fromBilling>;
      @ValidateNested()
      @Type(() => fromShipping)
      shipping!: InstanceType<typeof fromShipping>;
    }
    const { schema } = dtoToJsonSchema(Checkout);
    expect(schema.properties).toEqual({ billing: { $ref: '#/$defs/Address' }, shipping: { $ref: '#/$defs/Address2' } });
    const defs = schema.$defs as Record<string, { properties: object }>;
    expect(Object.keys(defs.Address?.properties ?? {})).toEqual(['iban']);
    expect(Object.keys(defs.Address2?.properties ?? {})).toEqual(['street']);
  });

  it('supports self-referencing DTOs', () => {
    class TreeNode {
      @IsString()
      name!: string;
      @IsOptional()
      @ValidateNested({ each: true })
      @Type(() => TreeNode)
      children?: TreeNode[];
    }
    const { schema } = dtoToJsonSchema(TreeNode);
    expect(schema.properties).toEqual({ name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/TreeNode' } } });
    expect((schema.$defs as Record<string, unknown>).TreeNode).toMatchObject({
      properties: { children: { items: { $ref: '#/$defs/TreeNode' } } },
    });
  });

  it('advertises input and output schemas in tools/list, with title, annotations and _meta', () => {
    class PriceInput {
      @Field('Stock keeping unit')
      @IsString()
      sku!: string;
    }
    class PriceOutput {
      @IsString()
      sku!: string;
      @IsInt()
      cents!: number;
      @IsIn(['EUR'])
      currency!: string;
    }
    @McpServer({ name: 'shop', version: '1' })
    class Shop {
      @Tool({
        title: 'Get price',
        description: 'Price of one article',
        output: () => PriceOutput,
        annotations: { readOnlyHint: true, openWorldHint: false },
        _meta: { 'example.com/team': 'pricing' },
      })
      get_price(input: PriceInput) {
        return { sku: input.sku, cents: 100, currency: 'EUR' };
      }
    }
    const [tool] = createMcpApp(Shop).definition.toolList;
    expect(tool).toEqual({
      name: 'get_price',
      title: 'Get price',
      description: 'Price of one article',
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { 'example.com/team': 'pricing' },
      inputSchema: {
        type: 'object',
        properties: { sku: { type: 'string', description: 'Stock keeping unit' } },
        required: ['sku'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: { sku: { type: 'string' }, cents: { type: 'integer' }, currency: { type: 'string', enum: ['EUR'] } },
        required: ['sku', 'cents', 'currency'],
        additionalProperties: false,
      },
    });
  });

  it("advertises a raw inputSchema as written: no dialect added, the author's own kept", () => {
    @McpServer({ name: 'raw', version: '1' })
    class Raw {
      @Tool({ description: 'd', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } })
      search(input: { q: string }) {
        return input.q;
      }

      @Tool({
        description: 'd',
        inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { n: { type: 'number' } } },
      })
      count(input: { n?: number }) {
        return String(input.n);
      }
    }
    const [search, count] = createMcpApp(Raw).definition.toolList;
    expect(search?.inputSchema).toEqual({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
    expect(count?.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { n: { type: 'number' } },
    });
  });
});
