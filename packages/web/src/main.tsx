import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { reloadForChunkError } from './errors/chunkReload.js';
// antd's prebuilt styles: the theme runs antd without generating styles at run time (theme.ts)
import 'antd/dist/antd.css';
import './styles.css';

// Vite reports a failed preload of a page's dependencies here; reload once per minute at most.
window.addEventListener('vite:preloadError', (event) => {
  if (reloadForChunkError()) event.preventDefault();
});

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
