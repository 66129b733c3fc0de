import type { Context } from '@armature/core';
import { isMcpRequest, MCP_CONTEXT, type McpRequest } from '@armature/nestjs';
import { Inject, Injectable, Scope } from '@nestjs/common';
import { REQUEST } from '@nestjs/core';
import type { CreateNoteInput, Note } from './note.dto.js';
import { NotesStore } from './notes.store.js';

/**
 * Request-scoped: one instance per REST request and per MCP call. It knows which door the request
 * came through, and over MCP it has the call's Context (here: to log to the client).
 */
@Injectable({ scope: Scope.REQUEST })
export class NotesRepository {
  private static built = 0;
  /** How many repositories were built so far, this one included. */
  readonly serial = ++NotesRepository.built;

  constructor(
    private readonly store: NotesStore,
    @Inject(REQUEST) private readonly request: McpRequest | { method: string },
    @Inject(MCP_CONTEXT) private readonly ctx: Context | undefined,
  ) {}

  add(input: CreateNoteInput): Note {
    const note = {
      id: this.store.notes.length + 1,
      title: input.title,
      priority: input.priority,
      via: isMcpRequest(this.request) ? 'mcp' : 'http',
    };
    this.store.notes.push(note);
    void this.ctx?.log.info(`note ${note.id} added by repository #${this.serial}`);
    return note;
  }

  list(): readonly Note[] {
    return this.store.notes;
  }
}
