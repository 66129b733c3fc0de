import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { NotesModule } from '../notes/notes.module.js';
import { AdminController } from './admin.controller.js';
import { AdminServer } from './admin.server.js';
import { RolesGuard } from './admin-only.js';

@Module({
  imports: [NotesModule],
  providers: [AdminServer, { provide: APP_GUARD, useClass: RolesGuard }],
  controllers: [AdminController],
})
export class AdminModule {}
