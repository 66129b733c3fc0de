import { Module } from '@nestjs/common';
import { NotesController } from './notes.controller.js';
import { NotesRepository } from './notes.repository.js';
import { NotesServer } from './notes.server.js';
import { NotesStore } from './notes.store.js';

@Module({ providers: [NotesStore, NotesRepository, NotesServer], controllers: [NotesController], exports: [NotesStore] })
export class NotesModule {}
