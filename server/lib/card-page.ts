// The shell of till's small server-rendered pages (device approval, OAuth consent): a centred card
// styled like the dashboard's sign-in, light and dark, with one nonce-carrying inline script.

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const STYLE = `
  :root { color-scheme: light dark; --bg: #f7f8fa; --surface: #fff; --fg: #14161b; --muted: #5b6270; --line: #e3e6eb; --accent: #2f4ccf; --accent-fg: #fff; --bad: #b42318; }
  @media (prefers-color-scheme: dark) { :root { --bg: #0e1014; --surface: #161920; --fg: #e8eaef; --muted: #a0a7b4; --line: #2a2f3a; --accent: #8fa2ff; --accent-fg: #0c0e13; --bad: #ff8a80; } }
  * { box-sizing: border-box; }
  body { font: 15px/1.5 ui-sans-serif, system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 24px; background: var(--bg); color: var(--fg); }
  main { width: 100%; max-width: 420px; background: var(--surface); border: 1px solid var(--line); border-radius: 14px; padding: 28px; box-shadow: 0 8px 30px rgba(16, 24, 40, .08); }
  .brand { display: flex; align-items: center; gap: 8px; font-weight: 700; font-size: 1.3rem; margin-bottom: 20px; }
  .logo { display: inline-grid; place-items: center; width: 28px; height: 28px; border-radius: 8px; background: var(--accent); color: var(--accent-fg); font-weight: 800; }
  h1 { font-size: 1.35rem; margin: 0 0 12px; }
  p { margin: 0 0 12px; }
  label { display: block; margin: 12px 0 4px; font-size: .85rem; font-weight: 600; }
  input, select { width: 100%; padding: 8px 10px; font: inherit; color: var(--fg); background: var(--surface); border: 1px solid var(--line); border-radius: 8px; }
  button { margin-top: 16px; padding: 8px 16px; font: inherit; font-weight: 600; border-radius: 8px; border: 1px solid var(--line); background: var(--surface); color: var(--fg); cursor: pointer; }
  button.primary, form button { background: var(--accent); color: var(--accent-fg); border-color: transparent; }
  form button.secondary { background: transparent; color: var(--fg); border: 1px solid var(--line); }
  button.link { margin: 0; padding: 0; border: 0; background: none; color: var(--accent); text-decoration: underline; font-weight: 600; }
  :focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  #message { min-height: 1.5rem; margin: 12px 0 0; font-weight: 600; }
  .muted { color: var(--muted); } .bad { color: var(--bad); }`;

export interface CardPage {
  /** The document title, before " · till". */
  title: string;
  heading: string;
  body: string;
  /** The response's CSP nonce: the page's one inline script runs only with it. */
  nonce: string;
  script: string;
  /** Rules of this page alone. */
  style?: string;
}

export function renderCardPage(page: CardPage): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} · till</title>
<style>${STYLE}${page.style ?? ""}
</style>
</head>
<body>
<main>
<div class="brand"><span class="logo" aria-hidden="true">t</span> till</div>
<h1>${escapeHtml(page.heading)}</h1>
${page.body}
<p id="message" role="status"></p>
</main>
<script nonce="${escapeHtml(page.nonce)}">
${page.script}
</script>
</body>
</html>
`;
}
