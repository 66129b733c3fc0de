import { Body, Controller, Get, Post } from '@nestjs/common';
import { CreateNoteInput, type Note } from './note.dto.js';
import { NotesRepository } from './notes.repository.js';

/** The REST face of the same module, with the same DTO. */
@Controller('notes')
export class NotesController {
  constructor(private readonly repository: NotesRepository) {}

  @Post()
  add(@Body() input: CreateNoteInput): Note {
    return this.repository.add(input);
  }

  @Get()
  list(): readonly Note[] {
    return this.repository.list();
  }
}
