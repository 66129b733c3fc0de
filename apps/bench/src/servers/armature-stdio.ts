// Armature over stdio: `node armature-stdio.js [--extra N]`.

import { createBenchApp } from './armature-app.js';
import { extraToolsFromArgv } from './bench-tools.js';

createBenchApp(extraToolsFromArgv(process.argv)).listenStdio();
