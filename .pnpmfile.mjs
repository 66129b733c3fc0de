// TypeScript 7 has no JS API. Two tools need one: TypeDoc (the docs site's API reference, which takes
// `typescript` as a peer that pnpm would resolve to the workspace's 7) and dependency-cruiser (the
// layer check of packages/core, which requires it undeclared). Each gets its own 6.0.3, the last line
// with the API (TOOLCHAIN.md); every package's own type-check keeps TypeScript 7.
const NEEDS_TYPESCRIPT_API = new Set(['typedoc', 'dependency-cruiser']);

function readPackage(pkg) {
  if (NEEDS_TYPESCRIPT_API.has(pkg.name)) {
    delete pkg.peerDependencies?.typescript;
    pkg.dependencies = { ...pkg.dependencies, typescript: '6.0.3' };
  }
  return pkg;
}

export const hooks = { readPackage };
