import { Type } from 'class-transformer';
import { IsString } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { dtoToJsonSchema, Field } from '../../src/index.js';

class Note {
  @IsString()
  text!: string;
}

describe('fix hints name the decorator the property needs', () => {
  it('a nested DTO with @Type and @Field but no @ValidateNested() is told @ValidateNested()', () => {
    class Input {
      @Field('The note')
      @Type(() => Note)
      note!: Note;
    }
    expect(dtoToJsonSchema(Input).problems).toContainEqual({
      code: 'ARM206',
      message: 'Input.note has @Field but no class-validator decorator, so it would be rejected as unknown',
      fix: 'add `@ValidateNested()` to Input.note (or `@Allow()` for any value)',
    });
  });

  it('a list of nested DTOs is told @ValidateNested({ each: true })', () => {
    class Input {
      @Field('The notes')
      @Type(() => Note)
      notes!: Note[];
    }
    expect(dtoToJsonSchema(Input).problems.map((p) => p.fix)).toContain(
      'add `@ValidateNested({ each: true })` to Input.notes (or `@Allow()` for any value)',
    );
  });

  it('an undecorated `pinned = false` is told @IsOptional() @IsBoolean(), and a count @IsInt()', () => {
    class Input {
      @IsString()
      title!: string;
      pinned = false;
      count = 3;
      ratio = 0.5;
    }
    expect(dtoToJsonSchema(Input).problems.map((p) => p.fix)).toEqual([
      'add `@IsOptional() @IsBoolean()` to Input.pinned, or move it out of the DTO',
      'add `@IsOptional() @IsInt()` to Input.count, or move it out of the DTO',
      'add `@IsOptional() @IsNumber()` to Input.ratio, or move it out of the DTO',
    ]);
  });

  it('a Date without @Type(() => Date) is told to add it', async () => {
    const { IsDate } = await import('class-validator');
    class Input {
      @IsDate()
      due!: Date;
    }
    expect(dtoToJsonSchema(Input).problems).toContainEqual({
      code: 'ARM210',
      message: 'Input.due has @IsDate() but no @Type(() => Date), so the ISO string a client sends would never become a Date',
      fix: 'add `@Type(() => Date)` (from class-transformer) to Input.due',
    });
  });
});
