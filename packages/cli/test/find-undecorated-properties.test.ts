import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findUndecoratedProperties } from '../src/inspect/find-undecorated-properties.js';
import { tempDir } from './support/packed-project.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const root = tempDir('armature-check-');
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('findUndecoratedProperties', () => {
  it('names each DTO property with no decorator, where it is and the decorator it needs', () => {
    const root = project({
      'src/notes/dto/note.input.ts': `import { Field } from '@armature/core';
import { Type } from 'class-transformer';
import { IsString as Text } from 'class-validator';
import { Tag } from './tag.js';

export class NoteInput {
  @Field('The text')
  @Text()
  text!: string;

  color?: string;
  pinned = false;
  priority = 2;
  due?: Date;
  tags: Tag[] = [];
  static readonly MAX = 10;
}
`,
      'src/notes/notes.service.ts': `import { Service } from 'typedi';
export class NotesService {
  cache = new Map();
}
`,
    });
    expect(findUndecoratedProperties(root)).toEqual(
      [
        ['color', 11, '@IsOptional() @IsString()'],
        ['pinned', 12, '@IsOptional() @IsBoolean()'],
        ['priority', 13, '@IsOptional() @IsInt()'],
        ['due', 14, '@IsOptional() @IsDate() @Type(() => Date)'],
        ['tags', 15, '@IsOptional() @ValidateNested({ each: true }) @Type(() => Tag)'],
      ].map(([name, line, fix]) => ({
        rule: 'undecorated-property',
        where: `NoteInput.${name} (src/notes/dto/note.input.ts:${line})`,
        message: `no decorator, so it is not in the schema and a client sending it is refused as an unknown property. Fix: ${fix}`,
      })),
    );
  });

  it('names a property that only @Field describes (start-up refuses it, ARM206), with the validator it needs', () => {
    const root = project({
      'src/note.input.ts': `import { Field as Describe } from '@armature/core';
import { IsString } from 'class-validator';

export class NoteInput {
  @IsString()
  text!: string;

  @Describe('Its colour')
  color?: string;
}
`,
    });
    expect(findUndecoratedProperties(root)).toEqual([
      {
        rule: 'field-without-validator',
        where: 'NoteInput.color (src/note.input.ts:8)',
        message:
          '@Field describes it but no validator checks it, so start-up refuses it (ARM206). Fix: add @IsOptional() @IsString() (or @Allow() for any value)',
      },
    ]);
  });

  it('finds nothing in classes that are not DTOs, or when every property is decorated', () => {
    const root = project({
      'src/a.ts': `import { IsString } from 'class-validator';\nexport class A {\n  @IsString() name!: string;\n}\nexport class Plain {\n  x = 1;\n}\n`,
    });
    expect(findUndecoratedProperties(root)).toEqual([]);
  });
});
