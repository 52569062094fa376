import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));

/** A page's chunk name: `src/pages/<folder>/...` -> `page-<folder>`. */
function pageChunk(id: string): string | null {
  const match = /[\\/]src[\\/]pages[\\/]([^\\/]+)[\\/]/.exec(id);
  return match ? `page-${match[1]}` : null;
}

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
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
