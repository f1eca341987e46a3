// The verification page of the device flow (`till login` prints <base>/device?user_code=...). Plain
// server-rendered HTML with a little inline script that calls better-auth's own endpoints: sign in
// with email and password if needed, claim the code (GET /api/auth/device?user_code=), then approve
// or deny it. Someone without an account creates one here, and then an organization, so `till login`
// is the whole way in. Styled like the dashboard's sign-in card, light and dark.

import { escapeHtml, renderCardPage } from "../../lib/card-page.ts";

export interface DevicePageState {
  user: { email: string; name: string } | null;
  userCode: string;
  /** The response's CSP nonce: the page's one inline script runs only with it. */
  nonce: string;
}

export function renderDevicePage(state: DevicePageState): string {
  const code = escapeHtml(state.userCode);
  const body = state.user
    ? `<p id="who" class="muted">Signed in as <strong>${escapeHtml(state.user.email)}</strong>.</p>
<form id="code-form">
  <label for="user_code">Code shown in your terminal</label>
  <input id="user_code" name="user_code" value="${code}" autocomplete="off" autocapitalize="characters" spellcheck="false" required>
  <button type="submit">Continue</button>
</form>
<section id="confirm" hidden>
  <p>Allow <strong id="client"></strong> to sign in to till as you?</p>
  <button id="approve" type="button" class="primary">Approve</button>
  <button id="deny" type="button">Deny</button>
</section>
<section id="new-org" hidden>
  <p>You have no organization yet: create one to sell from.</p>
  <form id="org-form">
    <label for="org_name">Organization name</label>
    <input id="org_name" name="org_name" autocomplete="organization" required>
    <button type="submit">Create organization</button>
  </form>
</section>`
    : `<p class="muted">Sign in to approve the device.</p>
<form id="sign-in-form">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>
<p class="muted">No account? <button id="show-sign-up" type="button" class="link">Create one</button></p>
<form id="sign-up-form" hidden>
  <label for="new_name">Name</label>
  <input id="new_name" name="name" autocomplete="name" required>
  <label for="new_email">Email</label>
  <input id="new_email" name="email" type="email" autocomplete="username" required>
  <label for="new_password">Password (8 characters or more)</label>
  <input id="new_password" name="password" type="password" autocomplete="new-password" minlength="8" required>
  <button type="submit">Create account</button>
</form>`;
  return renderCardPage({
    title: "Approve device",
    heading: "Approve device",
    body,
    nonce: state.nonce,
    style: STYLE,
    script: SCRIPT,
  });
}

const STYLE = `
  #user_code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 1.3rem; letter-spacing: .25em; text-align: center; text-transform: uppercase; }
  form button, #approve, #deny { width: 100%; }
  #deny { margin-top: 8px; }
  #new-org, #confirm { border-top: 1px solid var(--line); margin-top: 16px; padding-top: 16px; }`;

const SCRIPT = `const api = "/api/auth";
const message = (text) => { document.getElementById("message").textContent = text; };
async function call(path, init) {
  const res = await fetch(api + path, { credentials: "same-origin", headers: { "content-type": "application/json" }, ...init });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error_description || data.message || "Request failed (" + res.status + ")");
  return data;
}
const signIn = document.getElementById("sign-in-form");
if (signIn) signIn.addEventListener("submit", async (e) => {
  e.preventDefault();
  try {
    await call("/sign-in/email", { method: "POST", body: JSON.stringify({ email: signIn.email.value, password: signIn.password.value }) });
    location.reload();
  } catch (err) { message(err.message); }
});
const signUp = document.getElementById("sign-up-form");
if (signUp) {
  document.getElementById("show-sign-up").addEventListener("click", () => {
    signUp.hidden = false;
    signIn.hidden = true;
    document.getElementById("new_name").focus();
  });
  signUp.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const data = await call("/sign-up/email", { method: "POST", body: JSON.stringify({ name: document.getElementById("new_name").value, email: document.getElementById("new_email").value, password: document.getElementById("new_password").value }) });
      if (data.token) location.reload();
      else message("Account created. Follow the link in the email we sent, then sign in here.");
    } catch (err) { message(err.message); }
  });
}
const orgForm = document.getElementById("org-form");
if (orgForm) {
  fetch("/v1/organizations/?limit=1", { credentials: "same-origin" }).then((r) => r.ok ? r.json() : null).then((page) => {
    if (page && page.items.length === 0) document.getElementById("new-org").hidden = false;
  });
  orgForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const name = orgForm.org_name.value.trim();
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "shop";
    const res = await fetch("/v1/organizations/", { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, slug }) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) { message(typeof data.detail === "string" ? data.detail : (data.detail && data.detail[0] && data.detail[0].msg) || "Could not create the organization."); return; }
    document.getElementById("new-org").hidden = true;
    message("Created " + data.name + ". Approve the device to continue.");
  });
}
const codeForm = document.getElementById("code-form");
let userCode = "";
async function claim(code) {
  userCode = code.trim().toUpperCase();
  const data = await call("/device?user_code=" + encodeURIComponent(userCode), { method: "GET", headers: {} });
  if (data.status !== "pending") { message("This code was already " + data.status + "."); return; }
  document.getElementById("client").textContent = data.client_id || "this device";
  document.getElementById("confirm").hidden = false;
  message("");
}
if (codeForm) {
  codeForm.addEventListener("submit", (e) => { e.preventDefault(); claim(codeForm.user_code.value).catch((err) => message(err.message)); });
  for (const [id, path, done] of [["approve", "/device/approve", "Approved. You can return to your terminal."], ["deny", "/device/deny", "Denied. The device was not signed in."]]) {
    document.getElementById(id).addEventListener("click", async () => {
      try {
        await call(path, { method: "POST", body: JSON.stringify({ userCode }) });
        document.getElementById("confirm").hidden = true;
        message(done);
      } catch (err) { message(err.message); }
    });
  }
  if (codeForm.user_code.value) claim(codeForm.user_code.value).catch((err) => message(err.message));
}
`;
