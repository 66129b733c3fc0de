import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/start-up-loads.mjs', import.meta.url));

interface Loaded {
  phase: string;
  answer: string;
  packages: string[];
  builtins: string[];
}

// Issue 35: what an app does not use is not loaded. A fresh process (the built package, as users
// run it) starts an app, serves a call, and lists the packages it has loaded and Node's HTTP
// built-ins (listenHttp loads node:http, a stdio or in-memory server never does); then calls a rate-limited tool, which loads rate-limiter-flexible only then.
it('loads what a started app uses, and rate-limiter-flexible only at the first rate-limited call', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [FIXTURE], { timeout: 60_000 });
  const [served, limited] = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Loaded);
  expect(served).toEqual({
    phase: 'served',
    answer: '5',
    // The SDK (with zod) and ext-apps' constants; the DTO libraries (class-validator with
    // validator.js and libphonenumber-js); typedi and reflect-metadata. Not the official client
    // (remote servers), jose (JWT auth), Ajv, rate-limiter-flexible, nor the OpenTelemetry API
    // (the app registered no OpenTelemetry SDK; telemetry is on, its default).
    packages: [
      '@modelcontextprotocol/core',
      '@modelcontextprotocol/ext-apps',
      '@modelcontextprotocol/server',
      'class-transformer',
      'class-validator',
      'libphonenumber-js',
      'reflect-metadata',
      'typedi',
      'validator',
      'zod',
    ],
    builtins: [],
  });
  expect(limited?.answer).toBe('found');
  expect(limited?.packages).toEqual([...(served?.packages ?? []), 'rate-limiter-flexible'].sort());
  expect(limited?.builtins).toEqual([]);
}, 90_000);
