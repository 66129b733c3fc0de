import { McpServer, Tool } from '@armature/core';
import { Injectable } from '@nestjs/common';
import { StatsService } from './stats.service.js';

@McpServer({ name: 'stats', version: '1.0.0' })
@Injectable()
export class StatsServer {
  constructor(private readonly stats: StatsService) {}

  @Tool({ description: 'Count the notes by priority', annotations: { readOnlyHint: true } })
  note_stats(): Record<string, number> {
    return this.stats.byPriority();
  }
}
