import { Field, McpServer, Tool } from '@armature/core';
import { IsInt, IsString, Length, Max, Min } from 'class-validator';
import { Service } from 'typedi';

export class AddNoteInput {
  @Field('The note')
  @IsString()
  @Length(1, 200)
  text!: string;

  @Field('How important, 1 to 5')
  @IsInt()
  @Min(1)
  @Max(5)
  priority!: number;
}

@Service()
export class NoteFormatter {
  format(input: AddNoteInput): string {
    return `${'!'.repeat(input.priority)} ${input.text}`;
  }
}

/** The Workers build's app: a DTO tool (validated without code generation) and an injected service. */
@McpServer({ name: 'notes-on-workers', version: '0.1.0' })
export class NotesServer {
  constructor(private readonly formatter: NoteFormatter) {}

  @Tool({ description: 'Format a note with its priority.' })
  addNote(input: AddNoteInput): string {
    return this.formatter.format(input);
  }
}
