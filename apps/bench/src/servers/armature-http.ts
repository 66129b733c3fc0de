// Armature over HTTP on 127.0.0.1, port 0: prints `listening <url>` on stdout, stops on SIGTERM.
import { createBenchApp } from './armature-app.js';

const app = createBenchApp();
const listener = await app.listenHttp({ port: 0 });
process.stdout.write(`listening ${listener.url}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
