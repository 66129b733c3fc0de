// #region worker
import { createMcpApp, serveOnWorkers } from '@armature/core';
import { NotesServer } from './notes.server.js';

// Made at each isolate's first request: a Worker's top level may not make random values.
export default serveOnWorkers(() => createMcpApp(NotesServer));
// #endregion worker
