import { Injectable } from '@nestjs/common';
import type { Note } from './note.dto.js';

/** The app's data (a singleton): one list shared by every request. */
@Injectable()
export class NotesStore {
  readonly notes: Note[] = [];
}
