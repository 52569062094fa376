/**
 * The browsable reference of the OpenAPI document (`GET /api/docs`): one static HTML page, written on
 * the server from the same document, with no script and nothing fetched from elsewhere (the product
 * runs offline). Each route shows its method, path, guard, parameters, body and answers; schemas
 * open on demand.
 */

type Json = Record<string, unknown>;

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const schemaBlock = (label: string, schema: unknown) =>
  `<details><summary>${escapeHtml(label)}</summary><pre>${escapeHtml(JSON.stringify(schema, null, 2))}</pre></details>`;

function operationHtml(method: string, path: string, op: Json): string {
  const params = (op.parameters as Json[] | undefined) ?? [];
  const rows = params
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(String(p.name))}</code></td><td>${escapeHtml(String(p.in))}</td><td>${p.required ? 'required' : ''}</td><td><code>${escapeHtml(JSON.stringify(p.schema))}</code></td></tr>`,
    )
    .join('');
  const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
  const responses = Object.entries((op.responses as Record<string, Json>) ?? {})
    .map(([status, r]) => {
      const schema = (r.content as Record<string, Json> | undefined)?.['application/json']?.schema;
      const text = `<b>${escapeHtml(status)}</b> ${escapeHtml(String(r.description ?? ''))}`;
      return `<li>${schema ? schemaBlock(`${status} ${String(r.description ?? '')}`, schema) : text}</li>`;
    })
    .join('');
  return `<section class="op" id="${escapeHtml(`${method}-${path}`)}">
<h3><span class="m m-${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code> <span class="guard">${escapeHtml(String(op['x-adplane-guard']))}</span></h3>
<p>${escapeHtml(String(op.description ?? ''))}</p>
${rows ? `<table><tr><th>parameter</th><th>in</th><th></th><th>schema</th></tr>${rows}</table>` : ''}
${body ? schemaBlock('Request body (application/json)', body['application/json']?.schema) : ''}
<ul class="responses">${responses}</ul>
</section>`;
}

/** The whole page of `doc`, grouped by each operation's first tag. */
export function renderApiReference(doc: Json): string {
  const info = doc.info as Json;
  const groups = new Map<string, string[]>();
  let count = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags as string[] | undefined)?.[0] ?? 'api';
      groups.set(tag, [...(groups.get(tag) ?? []), operationHtml(method, path, op)]);
      count++;
    }
  }
  const tags = [...groups.keys()].sort();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(String(info.title))} reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.5 system-ui,sans-serif;margin:0;color:#1f2329;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;min-width:200px;padding:16px;background:#f5f6f8;border-right:1px solid #e3e5e8}
nav a{display:block;color:#1f2329;text-decoration:none;padding:2px 0}
main{padding:16px 32px;max-width:1100px}
h2{border-bottom:1px solid #e3e5e8;padding-bottom:4px;margin-top:32px}
.op{border:1px solid #e3e5e8;border-radius:6px;padding:8px 16px;margin:12px 0}
.op h3{margin:4px 0;font-size:15px}
.m{display:inline-block;min-width:60px;text-align:center;border-radius:4px;color:#fff;font-size:12px;padding:2px 6px;background:#6b7280}
.m-get{background:#2563eb}.m-post{background:#16a34a}.m-put{background:#d97706}.m-delete{background:#dc2626}.m-patch{background:#7c3aed}
.guard{font-size:12px;color:#6b7280;font-weight:normal;margin-left:8px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #e3e5e8;padding:2px 8px;text-align:left;font-size:13px}
pre{background:#f5f6f8;padding:8px;overflow:auto;max-height:400px}
.responses{padding-left:18px}
</style></head>
<body><nav><b>${escapeHtml(String(info.title))}</b><br><small>${count} routes · <a href="/api/openapi.json" style="display:inline">openapi.json</a></small>
${tags.map((t) => `<a href="#tag-${escapeHtml(t)}">${escapeHtml(t)}</a>`).join('\n')}</nav>
<main><h1>${escapeHtml(String(info.title))} <small>${escapeHtml(String(info.version))}</small></h1>
<p>${escapeHtml(String(info.description ?? ''))}</p>
<p>The machine-readable document: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI ${escapeHtml(String(doc.openapi))}).</p>
${tags.map((t) => `<h2 id="tag-${escapeHtml(t)}">${escapeHtml(t)}</h2>\n${(groups.get(t) ?? []).join('\n')}`).join('\n')}
</main></body></html>`;
}
