// @armature/core first: it loads reflect-metadata, which the compiled decorators below need.
import { Field } from '@armature/core';
import { IsInt, IsNumber, Matches, Max, Min } from 'class-validator';

export class AddInput {
  @Field('The first addend')
  @IsNumber()
  a!: number;

  @Field('The second addend')
  @IsNumber()
  b!: number;
}

export class CountDownInput {
  // Initialisers are the defaults: advertised in the schema, applied when the argument is absent.
  @Field('How many steps to count down')
  @IsInt()
  @Min(1)
  @Max(1000)
  steps = 5;

  @Field('Pause between two steps, in milliseconds')
  @IsInt()
  @Min(0)
  @Max(10_000)
  delayMs = 200;
}

export class SwatchInput {
  @Field({ description: 'Colour as #rrggbb', examples: ['#ff8800'] })
  @Matches(/^#[0-9a-fA-F]{6}$/, { message: 'must be a colour written #rrggbb' })
  color!: string;

  @Field('Width and height of the square, in pixels')
  @IsInt()
  @Min(1)
  @Max(64)
  size = 8;
}
