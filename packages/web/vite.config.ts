import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { type Plugin, defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));

/** A page's chunk name: `src/pages/<folder>/...` -> `page-<folder>`. */
function pageChunk(id: string): string | null {
  const match = /[\\/]src[\\/]pages[\\/]([^\\/]+)[\\/]/.exec(id);
  return match ? `page-${match[1]}` : null;
}

/** Text files worth compressing: what a browser loads, not the source maps only developer tools fetch. */
const COMPRESSIBLE = /\.(js|css|html|svg|json|txt)$/;

/**
 * Writes a Brotli and a gzip copy beside every text file of the build bigger than a kilobyte; the
 * server sends the copy a browser accepts (@fastify/static's preCompressed), so the console's first
 * load moves about a quarter of its bytes without the server compressing on each request.
 */
function precompress(): Plugin {
  return {
    name: 'adplane-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir ?? join(root, 'dist');
      for (const name of [...Object.keys(bundle), 'index.html']) {
        if (!COMPRESSIBLE.test(name)) continue;
        const path = join(dir, name);
        const body = readFileSync(path);
        if (body.length < 1024) continue;
        writeFileSync(
          `${path}.br`,
          brotliCompressSync(body, {
            params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
          }),
        );
        writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  plugins: [react(), precompress()],
  server: {
    port: 5173,
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
  preview: {
    proxy: {
      '/api': { target: 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      output: {
        // Rolldown's form of manualChunks: antd (with its rc components and icons) and React are
        // vendor chunks of their own, and each page folder is one chunk.
        codeSplitting: {
          // Only the matched modules go to a group; their dependencies stay shared chunks.
          includeDependenciesRecursively: false,
          groups: [
            {
              name: 'vendor-antd',
              test: /[\\/]node_modules[\\/](antd|@ant-design|@rc-component|rc-[^\\/]+)[\\/]/,
              priority: 30,
            },
            {
              name: 'vendor-react',
              test: /[\\/]node_modules[\\/](react|react-dom|react-router|scheduler|cookie|set-cookie-parser)[\\/]/,
              priority: 30,
            },
            { name: 'vendor', test: /[\\/]node_modules[\\/]/, priority: 10 },
            { name: pageChunk, debugName: 'pages', test: /[\\/]src[\\/]pages[\\/]/, priority: 20 },
          ],
        },
      },
    },
  },
});
