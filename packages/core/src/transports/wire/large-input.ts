/**
 * Inputs from this size on (HTTP body characters, stdio line bytes) are decoded, pre-scanned and
 * parsed in separate turns of the event loop, so other requests are served in between: each step
 * costs milliseconds (reliability figure 7: no block over 50 ms).
 */
export const LARGE_INPUT = 512 * 1024;

/** Resolves on the next turn of the event loop, after pending I/O. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
