import { createMcpApp, serveOnWorkers } from '@armature/core';
import { NotesServer } from './notes.server.js';

// The Worker's entry: bundled by `armature build dist/worker.js --target workers`.
export default serveOnWorkers(() => createMcpApp(NotesServer));
