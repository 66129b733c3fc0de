// The Armature side: `add` and a nested `search` DTO, written as a user would.
import { type Constructor, type CreateMcpAppOptions, createMcpApp, Field, type McpApp, McpServer, Tool } from '@armature/core';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  ADD_DESCRIPTION,
  addText,
  extraToolDescription,
  extraToolName,
  KINDS,
  type Kind,
  SEARCH_DESCRIPTION,
  SERVER_INFO,
  searchText,
} from './bench-tools.js';

// #region armature-server
export class AddInput {
  @Field({ description: 'The first addend' })
  @IsNumber()
  a!: number;

  @Field({ description: 'The second addend' })
  @IsNumber()
  b!: number;
}

export class SearchFilters {
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  tags!: string[];

  @IsArray()
  @ArrayMinSize(1)
  @IsIn(KINDS, { each: true })
  kinds!: Kind[];

  @IsOptional()
  @IsInt()
  @Min(0)
  minStars?: number;
}

export class SearchInput {
  @IsString()
  @MinLength(2)
  @MaxLength(200)
  query!: string;

  @ValidateNested()
  @Type(() => SearchFilters)
  filters!: SearchFilters;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;
}

@McpServer(SERVER_INFO)
export class BenchServer {
  @Tool({ description: ADD_DESCRIPTION })
  add(input: AddInput) {
    return addText(input.a, input.b);
  }

  @Tool({ description: SEARCH_DESCRIPTION })
  search(input: SearchInput) {
    return searchText(input);
  }
}
// #endregion armature-server

/**
 * A second `@McpServer` class holding `add_1` … `add_N`, each decorated exactly as a hand-written
 * method would be (`design:paramtypes` included), for the 500-tool scenarios.
 */
function extraToolsServer(count: number): Constructor {
  class ExtraTools {}
  const proto = ExtraTools.prototype as unknown as Record<string, unknown>;
  for (let i = 1; i <= count; i++) {
    const name = extraToolName(i);
    Object.defineProperty(proto, name, {
      value: (input: AddInput) => addText(input.a, input.b),
      writable: true,
      configurable: true,
    });
    const descriptor = Object.getOwnPropertyDescriptor(proto, name) as PropertyDescriptor;
    Reflect.decorate(
      [Tool({ description: extraToolDescription(i) }), Reflect.metadata('design:paramtypes', [AddInput])],
      proto,
      name,
      descriptor,
    );
  }
  McpServer(SERVER_INFO)(ExtraTools);
  return ExtraTools;
}

export function createBenchApp(extraTools = 0, options: CreateMcpAppOptions = {}): McpApp {
  return createMcpApp(extraTools > 0 ? [BenchServer, extraToolsServer(extraTools)] : BenchServer, options);
}
