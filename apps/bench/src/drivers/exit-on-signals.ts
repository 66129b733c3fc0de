// A bench command cut off by a timeout (SIGTERM, as spawnSync's `timeout` sends) or by Ctrl-C
// (SIGINT) exits through `process.exit`, so that the exit hook of `stopsWithProcess`
// (@armature/test-redis) stops the servers and redis-servers it started. Without it, Node ends at
// once on those signals, runs no exit hook, and a cut-off run left its servers listening.

/** Makes SIGTERM and SIGINT exit through `process.exit`, with the shell's codes (143, 130). */
export function exitOnSignals(): void {
  process.once('SIGTERM', () => process.exit(143));
  process.once('SIGINT', () => process.exit(130));
}
