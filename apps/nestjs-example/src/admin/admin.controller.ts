import { Controller, Delete } from '@nestjs/common';
import { NotesStore } from '../notes/notes.store.js';
import { AdminOnly } from './admin-only.js';

@Controller('admin')
export class AdminController {
  constructor(private readonly store: NotesStore) {}

  @AdminOnly()
  @Delete('notes')
  purge(): { deleted: number } {
    return { deleted: this.store.notes.splice(0).length };
  }
}
