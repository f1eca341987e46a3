// The consent page an app sends the browser to (<base>/oauth2/authorize?…): plain server-rendered
// HTML. Signed out, it offers sign-in (better-auth's endpoint, then a reload); signed in, a form that
// posts the request's parameters with allow or deny to /v1/oauth2/consent, which redirects back to
// the app. No script is needed to consent, so the page works with scripts off once signed in.
import { escapeHtml, renderCardPage } from "../../lib/card-page.ts";

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
</form>`;

export function renderConsentPage(state: ConsentPageState): string {
  const body = state.error
    ? `<p class="bad">${escapeHtml(state.error)}</p>`
    : state.consent
      ? consentForm(state.consent)
      : SIGN_IN;
  return renderCardPage({
    title: "Authorize app",
    heading: "Authorize app",
    body,
    nonce: state.nonce,
    script: SCRIPT,
  });
}

const SCRIPT = `const form = document.getElementById("sign-in-form");
if (form) form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const res = await fetch("/api/auth/sign-in/email", { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: form.email.value, password: form.password.value }) });
  if (res.ok) location.reload();
  else document.getElementById("message").textContent = "Sign-in failed.";
});
`;
