// The layers of packages/core/src, bottom first (docs/architecture.md explains each). A folder may
// import only the folders it lists; anything else, and any import circle, fails `pnpm lint:layers`
// (run by .ci/run). Type-only imports count too: a layer is a layer for the reader as well.
const LAYERS = [
  ['messages', []],
  ['metadata', ['messages']],
  ['auth', ['messages']],
  ['context', ['metadata', 'messages']],
  ['seams', ['context', 'metadata', 'messages']],
  ['observability', ['seams', 'context', 'messages']],
  ['decorators', ['context', 'metadata', 'messages']],
  ['di', ['seams', 'context', 'metadata', 'messages']],
  ['schema', ['seams', 'context', 'metadata', 'messages']],
  ['validation', ['schema', 'seams', 'context', 'metadata', 'messages']],
  ['builder', ['validation', 'schema', 'di', 'seams', 'context', 'metadata', 'messages']],
  ['state', ['messages']],
  ['runtime', ['builder', 'validation', 'schema', 'di', 'state', 'seams', 'observability', 'context', 'metadata', 'auth', 'messages']],
  ['engine', ['runtime', 'builder', 'validation', 'schema', 'di', 'state', 'seams', 'observability', 'context', 'metadata', 'messages']],
  ['remote', ['runtime', 'builder', 'validation', 'seams', 'observability', 'context', 'metadata', 'messages']],
  // Armature's own extensions, on the public extension interface only (context/extension.ts).
  ['extensions', ['context', 'metadata', 'messages']],
  ['transports', ['engine', 'auth', 'validation', 'state', 'seams', 'observability', 'context', 'metadata', 'messages']],
  [
    'app',
    [
      'transports',
      'remote',
      'extensions',
      'engine',
      'auth',
      'runtime',
      'builder',
      'validation',
      'schema',
      'di',
      'decorators',
      'state',
      'seams',
      'observability',
      'context',
      'metadata',
      'messages',
    ],
  ],
];
const SRC = '^packages/core/src/';

module.exports = {
  forbidden: [
    ...LAYERS.map(([folder, allowed]) => ({
      name: `layer-${folder}`,
      comment: `${folder}/ may import only ${allowed.length ? allowed.map((f) => `${f}/`).join(', ') : 'itself'} (see docs/architecture.md)`,
      severity: 'error',
      from: { path: `${SRC}${folder}/` },
      to: { path: `${SRC}(?!(?:${[folder, ...allowed].join('|')})/)[^/]+/` },
    })),
    {
      name: 'no-folder-for-unknown-layer',
      comment: 'every folder of packages/core/src is a layer listed in .dependency-cruiser.cjs and docs/architecture.md',
      severity: 'error',
      from: { path: `${SRC}(?!(?:${LAYERS.map(([f]) => f).join('|')})/)[^/]+/` },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'no two modules of core import each other, directly or around a circle',
      severity: 'error',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'context-type-loads-no-sdk',
      comment: "the public Context type's module must load without the SDK (type-only imports are fine)",
      severity: 'error',
      from: { path: `${SRC}context/context\\.ts$` },
      to: { path: '@modelcontextprotocol', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^packages/core/src/|@modelcontextprotocol',
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
