// The API reference at /docs: the OpenAPI document rendered as one server-side HTML page, with no
// script and nothing fetched from elsewhere (the CSP allows neither, and self-hosted servers may
// have no internet). Operations grouped by tag; every model once, linked from where it is used.
import { escapeHtml } from "../lib/card-page.ts";
import type { OpenApiDocument } from "./document.ts";

type Json = Record<string, unknown>;

const refName = (ref: string) => ref.split("/").pop()!;

/** A JSON Schema as readable JSON, its $refs turned into links to the model's section. */
function schemaHtml(schema: unknown): string {
  const text = escapeHtml(JSON.stringify(schema, null, 2));
  return `<pre>${text.replace(
    /&quot;\$ref&quot;: &quot;#\/components\/schemas\/([^&]+)&quot;/g,
    (_m, name: string) => `&quot;$ref&quot;: <a href="#model-${name}">${name}</a>`,
  )}</pre>`;
}

function typeOf(schema: Json | undefined): string {
  if (!schema) return "";
  if (typeof schema.$ref === "string") return refName(schema.$ref);
  if (Array.isArray(schema.enum)) return schema.enum.map(String).join(" | ");
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : String(schema.type ?? "");
  if (schema.type === "array") return `${typeOf(schema.items as Json)}[]`;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map(typeOf).join(" | ");
  return schema.format ? `${type} (${String(schema.format)})` : type;
}

function parametersHtml(params: Json[]): string {
  if (params.length === 0) return "";
  const rows = params
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(String(p.name))}</code></td><td>${escapeHtml(String(p.in))}</td><td>${escapeHtml(typeOf(p.schema as Json))}</td><td>${p.required ? "required" : ""}</td></tr>`,
    )
    .join("");
  return `<table><thead><tr><th>parameter</th><th>in</th><th>type</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
}

function operationHtml(path: string, method: string, op: Json): string {
  const id = escapeHtml(String(op.operationId));
  const body = (op.requestBody as Json | undefined)?.content as Json | undefined;
  const responses = Object.entries((op.responses ?? {}) as Record<string, Json>)
    .map(([status, r]) => {
      const schema = ((r.content as Json | undefined)?.["application/json"] as Json | undefined)
        ?.schema;
      return `<h4>${escapeHtml(status)} ${escapeHtml(String(r.description ?? ""))}</h4>${schema ? schemaHtml(schema) : ""}`;
    })
    .join("");
  const scopes = ((op.security as Json[] | undefined)?.[0]?.access_token as string[]) ?? [];
  return `<details id="op-${id}"><summary><span class="m m-${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code> ${escapeHtml(String(op.summary ?? ""))}</summary>
<p class="muted"><code>${id}</code>${scopes.length ? ` · scopes: ${escapeHtml(scopes.join(", "))}` : " · public"}</p>
${parametersHtml((op.parameters ?? []) as Json[])}
${body ? `<h4>Request body</h4>${schemaHtml((body["application/json"] as Json).schema)}` : ""}
${responses}</details>`;
}

export function renderDocsPage(doc: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods)) {
      const tag = String((op.tags as string[] | undefined)?.[0] ?? "other");
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(path, method, op)]);
    }
  const tags = [...byTag.keys()].sort();
  const sections = tags
    .map(
      (t) =>
        `<section id="tag-${escapeHtml(t)}"><h2>${escapeHtml(t)}</h2>${byTag.get(t)!.join("")}</section>`,
    )
    .join("");
  const models = Object.keys(doc.components.schemas)
    .sort()
    .map(
      (name) =>
        `<details id="model-${escapeHtml(name)}"><summary><code>${escapeHtml(name)}</code></summary>${schemaHtml(doc.components.schemas[name])}</details>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} reference</title>
<style>
:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.45}
body{max-width:64rem;margin:0 auto;padding:1.5rem}
nav a{margin-right:.75rem}
details{border:1px solid #8884;border-radius:6px;margin:.4rem 0;padding:.4rem .7rem}
summary{cursor:pointer}
pre{overflow:auto;font-size:.8rem;background:#8881;padding:.6rem;border-radius:4px;max-height:28rem}
table{border-collapse:collapse;font-size:.9rem}td,th{text-align:left;padding:.15rem .6rem;border-bottom:1px solid #8883}
.m{display:inline-block;min-width:4.2rem;font-weight:600;font-family:monospace}
.m-get{color:#2a7}.m-post{color:#27c}.m-patch{color:#c80}.m-delete{color:#c33}
.muted{opacity:.7}
</style></head><body>
<h1>${escapeHtml(doc.info.title)} reference</h1>
<p>${escapeHtml(doc.info.description)} The machine-readable document is <a href="/v1/openapi.json">/v1/openapi.json</a>. Authenticate with <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<nav>${tags.map((t) => `<a href="#tag-${escapeHtml(t)}">${escapeHtml(t)}</a>`).join("")}<a href="#models">models</a></nav>
${sections}
<section id="models"><h2>Models</h2>${models}</section>
</body></html>`;
}
