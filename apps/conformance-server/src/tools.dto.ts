import { Field } from '@armature/core';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

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
