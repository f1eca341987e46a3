// The consent page an app sends the browser to (<base>/oauth2/authorize?…): plain server-rendered
// HTML. Signed out, it offers sign-in (better-auth's endpoint, then a reload); signed in, a form that
// posts the request's parameters with allow or deny to /v1/oauth2/consent, which redirects back to
// the app. No script is needed to consent, so the page works with scripts off once signed in.
import { escapeHtml } from "../auth/device-page.ts";

export interface ConsentPageState {
  nonce: string;
  /** Null while signed out. */
  consent: {
    email: string | null;
    clientName: string;
    scopes: string[];
    subType: "user" | "organization";
    organizations: { id: string; name: string }[];
    /** The authorization request's parameters, posted back unchanged. */
    params: Record<string, string>;
  } | null;
  error: string | null;
}

function hidden(params: Record<string, string>): string {
  return Object.entries(params)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join("\n");
}

function consentForm(c: NonNullable<ConsentPageState["consent"]>): string {
  const orgs =
    c.subType === "organization"
      ? c.organizations.length === 0
        ? `<p class="bad">You have no organization to grant access to.</p>`
        : `<label for="organization_id">Organization</label>
<select id="organization_id" name="organization_id" required>
${c.organizations.map((o) => `<option value="${escapeHtml(o.id)}">${escapeHtml(o.name)}</option>`).join("\n")}
</select>`
      : "";
  return `<p class="muted">Signed in as <strong>${escapeHtml(c.email ?? "")}</strong>.</p>
<p><strong>${escapeHtml(c.clientName)}</strong> asks to:</p>
<ul>${c.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join("")}</ul>
<form method="post" action="/v1/oauth2/consent">
${hidden(c.params)}
${orgs}
<button type="submit" name="action" value="allow">Allow</button>
<button type="submit" name="action" value="deny" class="secondary">Deny</button>
</form>`;
}

const SIGN_IN = `<p class="muted">Sign in to continue.</p>
<form id="sign-in-form">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>
<p id="message" role="status"></p>`;

export function renderConsentPage(state: ConsentPageState): string {
  const body = state.error
    ? `<p class="bad">${escapeHtml(state.error)}</p>`
    : state.consent
      ? consentForm(state.consent)
      : SIGN_IN;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authorize app · till</title>
<style>
  :root { color-scheme: light dark; --bg: #f7f8fa; --surface: #fff; --fg: #14161b; --muted: #5b6270; --line: #e3e6eb; --accent: #2f4ccf; --accent-fg: #fff; --bad: #b42318; }
  @media (prefers-color-scheme: dark) { :root { --bg: #0e1014; --surface: #161920; --fg: #e8eaef; --muted: #a0a7b4; --line: #2a2f3a; --accent: #8fa2ff; --accent-fg: #0c0e13; --bad: #ff8a80; } }
  body { font: 15px/1.5 ui-sans-serif, system-ui, sans-serif; margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 24px; background: var(--bg); color: var(--fg); }
  main { width: 100%; max-width: 420px; background: var(--surface); border: 1px solid var(--line); border-radius: 14px; padding: 28px; }
  label { display: block; margin: 12px 0 4px; font-weight: 600; }
  input, select { width: 100%; padding: 8px; border: 1px solid var(--line); border-radius: 8px; background: var(--bg); color: var(--fg); }
  button { margin-top: 16px; padding: 9px 16px; border: 0; border-radius: 8px; background: var(--accent); color: var(--accent-fg); font-weight: 600; cursor: pointer; }
  button.secondary { background: transparent; color: var(--fg); border: 1px solid var(--line); }
  .muted { color: var(--muted); } .bad { color: var(--bad); }
</style>
</head>
<body>
<main>
<h1>Authorize app</h1>
${body}
</main>
<script nonce="${escapeHtml(state.nonce)}">
const form = document.getElementById("sign-in-form");
if (form) form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const res = await fetch("/api/auth/sign-in/email", { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: form.email.value, password: form.password.value }) });
  if (res.ok) location.reload();
  else document.getElementById("message").textContent = "Sign-in failed.";
});
</script>
</body>
</html>`;
}
