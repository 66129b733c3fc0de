import { Injectable } from '@nestjs/common';
import { NotesStore } from '../notes/notes.store.js';

/** A singleton: built once, shared by REST and MCP. */
@Injectable()
export class StatsService {
  constructor(private readonly store: NotesStore) {}

  byPriority(): Record<string, number> {
    const counts: Record<string, number> = { low: 0, normal: 0, high: 0 };
    for (const note of this.store.notes) counts[note.priority] = (counts[note.priority] ?? 0) + 1;
    return counts;
  }
}
