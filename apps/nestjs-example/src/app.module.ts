import { ArmatureModule } from '@armature/nestjs';
import { Module } from '@nestjs/common';
import { AdminModule } from './admin/admin.module.js';
import { NotesModule } from './notes/notes.module.js';
import { StatsModule } from './stats/stats.module.js';

/** `--stdio` serves MCP over stdin/stdout; otherwise REST and MCP share one HTTP port. */
export const STDIO = process.argv.includes('--stdio');

@Module({
  imports: [
    ArmatureModule.forRootAsync({
      useFactory: () => ({
        info: { name: 'nestjs-example', version: '1.0.0' },
        http: STDIO ? false : { path: process.env.MCP_PATH ?? '/mcp' },
        stdio: STDIO,
      }),
    }),
    NotesModule,
    AdminModule,
    StatsModule,
  ],
})
export class AppModule {}
