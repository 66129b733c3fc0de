import { createTestContext } from '@armature/testing';
import { IsString } from 'class-validator';
import { expect } from 'vitest';

class Confirm {
  @IsString()
  answer!: string;
}

export async function askingTheUser(): Promise<void> {
  const ctx = createTestContext({
    elicit: [{ action: 'accept', content: { answer: 'yes' } }],
    sample: () => 'A short summary.',
  });
  expect(await ctx.elicit('Proceed?', Confirm)).toEqual({ action: 'accept', content: { answer: 'yes' } });
  expect((await ctx.sample('Summarise the forecast')).content).toEqual({ type: 'text', text: 'A short summary.' });
  expect(ctx.elicitations).toEqual([{ message: 'Proceed?', dto: Confirm }]);
}
