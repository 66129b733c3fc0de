import { Module } from '@nestjs/common';
import { NotesModule } from '../notes/notes.module.js';
import { StatsServer } from './stats.server.js';
import { StatsService } from './stats.service.js';

@Module({ imports: [NotesModule], providers: [StatsService, StatsServer] })
export class StatsModule {}
