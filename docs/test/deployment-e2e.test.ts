import { expect, it } from 'vitest';
import { checkProcesses } from '../examples/deployment.js';

// examples/deployment/ compiled with plain tsc and run as a process: stdout kept for protocol messages,
// exit when stdin closes, and SIGTERM through enableShutdownHooks letting a running call finish.
it('the compiled deployment example behaves as docs/deployment.md says', async () => {
  await expect(checkProcesses()).resolves.toBeUndefined();
}, 120_000);
