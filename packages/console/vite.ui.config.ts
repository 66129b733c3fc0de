import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console page, bundled once at build time into dist/ui (one script, one style sheet): the
// Preact UI, the official MCP client and the MCP Apps bridge. No CDN: the page works offline.
export default defineConfig({
  root: fileURLToPath(new URL('./src/ui', import.meta.url)),
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('./dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    minify: true,
    lib: { entry: 'main.tsx', formats: ['es'], fileName: () => 'console.js', cssFileName: 'console' },
  },
});
