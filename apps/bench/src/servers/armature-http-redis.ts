// The app of armature-http.ts with the Redis state (`redisState` on REDIS_URL), over HTTP on
// 127.0.0.1, port 0: prints `listening <url>` on stdout, stops on SIGTERM.
import { redisState } from '@armature/redis';
import { createBenchApp } from './armature-app.js';

const url = process.env.REDIS_URL;
if (!url) throw new Error('armature-http-redis: set REDIS_URL (e.g. redis://127.0.0.1:6379)');
const app = createBenchApp(0, { state: redisState({ url }), requestStateKey: 'a shared key for the benchmark only' });
const listener = await app.listenHttp({ port: 0 });
process.stdout.write(`listening ${listener.url}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
