/**
 * `/v1/docs`: a reference page rendered from the OpenAPI document on the server. No script and nothing fetched from
 * elsewhere, so it works on a machine without Internet access.
 */
type Doc = { info: { title: string; version: string }; paths: Record<string, Record<string, Operation>> };
type Operation = {
  operationId: string;
  tags: string[];
  summary: string;
  parameters?: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  'x-scopes'?: string[];
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
};

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function renderDocsPage(doc: Doc): string {
  const byTag = new Map<string, Array<{ method: string; path: string; operation: Operation }>>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const tag = operation.tags[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push({ method, path, operation });
    }
  }
  const sections = [...byTag.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tag, operations]) => {
      const items = operations.map(({ method, path, operation }) => {
        const parameters = (operation.parameters ?? [])
          .map((p) => `<li><code>${escape(p.name)}</code> (${escape(p.in)}${p.required ? ', required' : ''})</li>`)
          .join('');
        const body = operation.requestBody
          ? `<details><summary>Request body</summary><pre>${escape(JSON.stringify(operation.requestBody.content['application/json']?.schema, null, 2))}</pre></details>`
          : '';
        const responses = Object.entries(operation.responses)
          .map(([status, response]) => {
            const schema = response.content?.['application/json']?.schema;
            return `<li><strong>${escape(status)}</strong> ${escape(response.description)}${schema ? `<pre>${escape(JSON.stringify(schema, null, 2))}</pre>` : ''}</li>`;
          })
          .join('');
        const scopes = operation['x-scopes']
          ? `<p>Scopes (any one): ${operation['x-scopes'].map((s) => `<code>${escape(s)}</code>`).join(' ')}</p>`
          : '<p>No authentication.</p>';
        return `<article id="${escape(operation.operationId)}"><h3><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span> <code>${escape(path)}</code></h3><p>${escape(operation.summary)}</p>${scopes}${parameters ? `<ul>${parameters}</ul>` : ''}${body}<details><summary>Responses</summary><ul>${responses}</ul></details></article>`;
      });
      return `<section><h2 id="${escape(tag)}">${escape(tag)}</h2>${items.join('')}</section>`;
    });
  const toc = [...byTag.keys()]
    .sort()
    .map((tag) => `<a href="#${escape(tag)}">${escape(tag)}</a>`)
    .join(' · ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info.title)} reference</title><meta name="viewport" content="width=device-width,initial-scale=1"><style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
code,pre{font-family:ui-monospace,monospace}pre{background:#f5f5f5;padding:.5rem;overflow:auto;font-size:12px}
article{border-top:1px solid #ddd;padding:.5rem 0}.m{display:inline-block;min-width:4rem;font-size:12px;color:#fff;background:#555;padding:0 .3rem;border-radius:3px;text-align:center}
.get{background:#2b6cb0}.post{background:#2f855a}.patch{background:#b7791f}.delete{background:#c53030}
</style></head><body><h1>${escape(doc.info.title)} <small>${escape(doc.info.version)}</small></h1><p>The machine-readable document is at <a href="/v1/openapi.json"><code>/v1/openapi.json</code></a>.</p><nav>${toc}</nav>${sections.join('')}</body></html>`;
}
