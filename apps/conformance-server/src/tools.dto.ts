import { Field } from '@armature/core';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export class LongRunningInput {
  @Field('Total duration of the operation in milliseconds (default 5000)')
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(600_000)
  durationMs: number = 5000;

  @Field('Number of steps; one progress notification per step (default 5)')
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  steps: number = 5;
}

/** Arguments of `test_header_params`: `region` travels in the `Mcp-Param-Region` header too (SEP-2243). */
export class HeaderParamsInput {
  @Field({ description: 'Region to route the lookup to; sent as the Mcp-Param-Region header as well', header: 'Region' })
  @IsString()
  @MaxLength(200)
  region!: string;

  @Field('What to look up')
  @IsString()
  @MaxLength(1000)
  query!: string;
}
