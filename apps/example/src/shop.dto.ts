// @armature/core first: it loads reflect-metadata, which the compiled decorators below need.
import { Field } from '@armature/core';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsEnum,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Currency } from './price-catalogue.service.js';

export enum ShippingSpeed {
  Standard = 'standard',
  Express = 'express',
}

const SKU = /^[A-Z]{3}-\d{3}$/;

export class GetPriceInput {
  @Field({ description: 'Catalogue SKU', examples: ['TEA-001'] })
  @Matches(SKU, { message: 'must look like TEA-001' })
  sku!: string;

  @Field('Currency of the price')
  @IsEnum(Currency)
  currency: Currency = Currency.EUR;
}

/** What `get_price` returns: advertised as its `outputSchema` and checked on every call. */
export class PriceOutput {
  @Field('Catalogue SKU')
  @IsString()
  sku!: string;

  @Field('Product name')
  @IsString()
  name!: string;

  @Field('Currency of the price')
  @IsEnum(Currency)
  currency!: Currency;

  @Field('Unit price in the minor unit of the currency (cents, pence)')
  @IsInt()
  @Min(0)
  unitPrice!: number;

  @Field('Whether the item ships today')
  @IsBoolean()
  inStock!: boolean;
}

export class Address {
  @Field({ description: 'ISO 3166-1 alpha-2 country code', examples: ['FR'] })
  @Matches(/^[A-Z]{2}$/, { message: 'must be a two-letter country code such as FR' })
  country!: string;

  @Field('Postal code')
  @IsString()
  @Length(1, 12)
  postcode!: string;
}

export class OrderLine {
  @Field({ description: 'Catalogue SKU', examples: ['TEA-001'] })
  @Matches(SKU, { message: 'must look like TEA-001' })
  sku!: string;

  @Field('How many units')
  @IsInt()
  @Min(1)
  @Max(100)
  quantity = 1;
}

export class QuoteInput {
  @Field('Where the order ships')
  @ValidateNested()
  @Type(() => Address)
  shipTo!: Address;

  @Field('The order lines, one per SKU')
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => OrderLine)
  lines!: OrderLine[];

  @Field('Currency of the quote')
  @IsEnum(Currency)
  currency: Currency = Currency.EUR;

  @Field('Delivery speed')
  @IsEnum(ShippingSpeed)
  shipping: ShippingSpeed = ShippingSpeed.Standard;

  @Field('Your own reference, echoed on the quote')
  @IsOptional()
  @IsString()
  @MaxLength(64)
  reference?: string;
}
