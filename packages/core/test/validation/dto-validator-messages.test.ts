import { ArrayUnique, IsString } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { validateDto } from '../../src/index.js';

describe('validation messages name the problem, not the property twice', () => {
  it('@ArrayUnique says the list repeats an element (class-validator writes "All tags\'s elements must be unique")', async () => {
    class Input {
      @ArrayUnique()
      @IsString({ each: true })
      tags!: string[];
    }
    const outcome = await validateDto(Input, { tags: ['a', 'a'] });
    expect(outcome.ok ? [] : outcome.issues).toEqual([{ path: 'tags', message: 'must not contain the same element twice' }]);
  });
});
