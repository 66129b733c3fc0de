import { McpServer, Tool } from '@armature/core';
import { Injectable } from '@nestjs/common';
import { NotesStore } from '../notes/notes.store.js';
import { AdminOnly } from './admin-only.js';

@McpServer({ name: 'admin', version: '1.0.0' })
@Injectable()
export class AdminServer {
  constructor(private readonly store: NotesStore) {}

  @AdminOnly()
  @Tool({ description: 'Delete every note', annotations: { destructiveHint: true } })
  purge_notes(): string {
    const count = this.store.notes.splice(0).length;
    return `Deleted ${count} notes`;
  }
}
