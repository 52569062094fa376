import { type FastifyInstance } from 'fastify';
import { CREATIVE_PREVIEW_MESSAGE, CREATIVE_PREVIEW_PATH } from '@adplane/shared';

/**
 * The document an HTML creative is previewed in. A creative's markup carries inline and third-party
 * scripts, which the console's CSP rightly refuses, and a srcdoc frame would inherit that CSP. So the
 * console frames this small page instead and posts it the markup; the page runs under its own policy:
 * `sandbox` (an opaque origin: no cookies, no console DOM, no same-origin API calls; popups stay
 * sandboxed, they never escape) and any script source, framed only by the console itself.
 */
const SHELL = `<!doctype html>
<html><head><meta charset="utf-8"><title>Creative preview</title></head>
<body style="margin:0">
<script>
(function () {
  var shown = false;
  addEventListener('message', function (event) {
    var data = event.data;
    if (shown || event.source !== parent || !data || data.type !== ${JSON.stringify(CREATIVE_PREVIEW_MESSAGE)}) return;
    shown = true;
    document.open();
    document.write(String(data.html));
    document.close();
  });
})();
</script>
</body></html>
`;

const CREATIVE_PREVIEW_CSP = [
  'sandbox allow-scripts allow-popups',
  "default-src * data: blob: 'unsafe-inline' 'unsafe-eval'",
  "frame-ancestors 'self'",
].join('; ');

export function registerCreativePreview(app: FastifyInstance): void {
  app.get(CREATIVE_PREVIEW_PATH, async (_request, reply) =>
    reply
      .header('content-security-policy', CREATIVE_PREVIEW_CSP)
      .header('x-frame-options', 'SAMEORIGIN')
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(SHELL),
  );
}
