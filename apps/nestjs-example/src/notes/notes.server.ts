import { McpServer, Tool } from '@armature/core';
import { Injectable } from '@nestjs/common';
import { CreateNoteInput, type Note } from './note.dto.js';
import { NotesRepository } from './notes.repository.js';

/** The MCP face of the notes module: a Nest provider, built per call with its repository. */
@McpServer({ name: 'notes', version: '1.0.0' })
@Injectable()
export class NotesServer {
  constructor(private readonly repository: NotesRepository) {}

  @Tool({ description: 'Add a note' })
  add_note(input: CreateNoteInput): Note {
    return this.repository.add(input);
  }

  @Tool({ description: 'List every note', annotations: { readOnlyHint: true } })
  list_notes(): { notes: readonly Note[] } {
    return { notes: this.repository.list() };
  }
}
