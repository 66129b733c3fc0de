import { Field, McpServer, Tool } from '@armature/core';
import { IsString } from 'class-validator';
import { Service } from 'typedi';
import { describe, expect, it } from 'vitest';
import { createTestingApp, textOf } from '../src/index.js';

// The repository a user's first server most often has: private state behind public methods.
// `tsc` (the typecheck task) checks this file; vitest then runs it.
@Service()
class NotesRepository {
  private readonly notes = new Map<string, string>();
  #writes = 0;

  find(id: string): string | undefined {
    return this.notes.get(id);
  }

  save(id: string, text: string): void {
    this.#writes += 1;
    this.notes.set(id, text);
  }
}

class GetNote {
  @Field('The note id')
  @IsString()
  id!: string;
}

@McpServer({ name: 'notes', version: '1.0.0' })
class NotesServer {
  constructor(private readonly notes: NotesRepository) {}

  @Tool({ description: 'Reads a note.' })
  get_note(input: GetNote): string {
    return this.notes.find(input.id) ?? 'not found';
  }
}

describe('overrideProvider(...).useValue(fake) for a class with private fields', () => {
  it('takes a structural fake without a cast, and the tool gets it', async () => {
    await using t = await createTestingApp({ servers: [NotesServer] })
      .overrideProvider(NotesRepository)
      .useValue({ find: (id) => `note ${id}` })
      .compile();
    expect(textOf(await t.callTool('get_note', { id: '7' }))).toBe('note 7');
  });

  it('still checks the fake against the public members', () => {
    const builder = createTestingApp({ servers: [NotesServer] }).overrideProvider(NotesRepository);
    // @ts-expect-error find returns string | undefined, not a number
    builder.useValue({ find: () => 42 });
    // @ts-expect-error NotesRepository has no member called remove
    builder.useValue({ remove: () => undefined });
    builder.useFactory(() => ({ save: () => undefined }));
    class FakeNotes {
      find() {
        return 'fake';
      }
    }
    builder.useClass(FakeNotes);
  });
});
