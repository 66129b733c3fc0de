import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { ArmatureBuildError, createMcpApp, McpServer, Tool, validateDto } from '../../src/index.js';

class CartLine {
  @IsInt()
  @Min(1)
  product_id!: number;
  @IsInt()
  quantity = 1;
}

class PlainDefaults {
  @IsString()
  customer!: string;
  @ValidateNested({ each: true })
  @Type(() => CartLine)
  items: CartLine[] = [{ product_id: 42, quantity: 2 }];
}

function line(product_id: number, quantity: number): CartLine {
  return Object.assign(new CartLine(), { product_id, quantity });
}

class InstanceDefaults {
  @IsString()
  customer!: string;
  @ValidateNested({ each: true })
  @Type(() => CartLine)
  items: CartLine[] = [line(42, 2)];
  @ValidateNested()
  @Type(() => CartLine)
  gift: CartLine = line(7, 1);
}

class Order {
  @IsString()
  customer!: string;
  @ValidateNested({ each: true })
  @Type(() => PlainDefaults)
  carts!: PlainDefaults[];
}

function toolOf(dto: new () => object) {
  @McpServer({ name: 's', version: '1' })
  class Shop {
    @Tool({ description: 'd', input: () => dto })
    order(input: object) {
      return input;
    }
  }
  return [...createMcpApp(Shop).definition.tools.values()][0]!;
}

describe('defaults of nested DTOs are advertised, honoured and converted to instances', () => {
  it('a list default written as plain objects: advertised, not required, and given as CartLine instances', async () => {
    const tool = toolOf(PlainDefaults);
    const items = (tool.inputSchema.properties as Record<string, Record<string, unknown>>).items;
    expect(items?.default).toEqual([{ product_id: 42, quantity: 2 }]);
    expect(tool.inputSchema.required).toEqual(['customer']);
    const outcome = await validateDto(PlainDefaults, { customer: 'ada' });
    expect(outcome.ok).toBe(true);
    const value = (outcome as { value: PlainDefaults }).value;
    expect(value.items).toEqual([line(42, 2)]);
    expect(value.items[0]).toBeInstanceOf(CartLine);
  });

  it('defaults written as instances (a list and a single object): advertised as their JSON and given as instances', async () => {
    const tool = toolOf(InstanceDefaults);
    const properties = tool.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.items?.default).toEqual([{ product_id: 42, quantity: 2 }]);
    expect(properties.gift?.default).toEqual({ product_id: 7, quantity: 1 });
    expect(tool.inputSchema.required).toEqual(['customer']);
    const outcome = await validateDto(InstanceDefaults, { customer: 'ada' });
    expect(outcome.ok).toBe(true);
    const value = (outcome as { value: InstanceDefaults }).value;
    expect(value.items[0]).toBeInstanceOf(CartLine);
    expect(value.gift).toEqual(line(7, 1));
  });

  it('a value the caller sends wins over the default; each call gets its own copy; the caller payload is left as it was', async () => {
    const sent = { customer: 'ada', items: [{ product_id: 5, quantity: 3 }] };
    const outcome = await validateDto(PlainDefaults, sent);
    expect((outcome as { value: PlainDefaults }).value.items).toEqual([line(5, 3)]);
    const first = (await validateDto(PlainDefaults, { customer: 'a' })) as { value: PlainDefaults };
    first.value.items[0]!.quantity = 99;
    const second = (await validateDto(PlainDefaults, { customer: 'b' })) as { value: PlainDefaults };
    expect(second.value.items[0]?.quantity).toBe(2);
    const omitted = { customer: 'ada' };
    await validateDto(PlainDefaults, omitted);
    expect(omitted).toEqual({ customer: 'ada' });
  });

  it('fills the defaults of a nested DTO inside a sent list', async () => {
    const outcome = await validateDto(Order, { customer: 'ada', carts: [{ customer: 'bob' }] });
    expect(outcome.ok).toBe(true);
    expect((outcome as { value: Order }).value.carts[0]?.items).toEqual([line(42, 2)]);
  });

  it('refuses at start-up a nested default that is not an object or a list of objects (ARM211)', () => {
    class Wrong {
      @ValidateNested({ each: true })
      @Type(() => CartLine)
      items: CartLine[] = 'none' as unknown as CartLine[];
    }
    expect(() => toolOf(Wrong)).toThrow(ArmatureBuildError);
    try {
      toolOf(Wrong);
    } catch (error) {
      const [problem] = (error as ArmatureBuildError).problems;
      expect(problem).toMatchObject({ code: 'ARM211', where: 'Shop.order' });
      expect(problem?.message).toBe(
        'the default of Wrong.items is not a list of objects, so it cannot be given as the list of CartLine a call would get',
      );
      expect(problem?.fix).toContain('items: CartLine[] = [{ ... }]');
    }
  });

  it('refuses at start-up a nested default that does not fit its DTO (ARM212)', () => {
    class Misfit {
      @IsOptional()
      @IsString()
      note?: string;
      @ValidateNested({ each: true })
      @Type(() => CartLine)
      items: CartLine[] = [{ product_id: 'x' as unknown as number, quantity: 1 }];
    }
    try {
      toolOf(Misfit);
      expect.unreachable('start-up should refuse the default');
    } catch (error) {
      const [problem] = (error as ArmatureBuildError).problems;
      expect(problem).toMatchObject({ code: 'ARM212', where: 'Shop.order' });
      expect(problem?.message).toContain('the default of Misfit.items does not fit its DTO (items.0.product_id:');
    }
  });
});
