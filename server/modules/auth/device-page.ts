// The verification page of the device flow (`till login` prints <base>/device?user_code=...). Plain
// server-rendered HTML with a little inline script that calls better-auth's own endpoints: sign in
// with email and password if needed, claim the code (GET /api/auth/device?user_code=), then approve
// or deny it. The dashboard issue restyles it; the HTTP calls stay the same.

export interface DevicePageState {
  user: { email: string; name: string } | null;
  userCode: string;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export function renderDevicePage(state: DevicePageState): string {
  const code = escapeHtml(state.userCode);
  const body = state.user
    ? `<p id="who">Signed in as <strong>${escapeHtml(state.user.email)}</strong>.</p>
<form id="code-form">
  <label for="user_code">Code shown in your terminal</label>
  <input id="user_code" name="user_code" value="${code}" autocomplete="off" autocapitalize="characters" spellcheck="false" required>
  <button type="submit">Continue</button>
</form>
<section id="confirm" hidden>
  <p>Allow <strong id="client"></strong> to sign in to till as you?</p>
  <button id="approve" type="button">Approve</button>
  <button id="deny" type="button">Deny</button>
</section>`
    : `<p>Sign in to approve the device.</p>
<form id="sign-in-form">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Approve device · till</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 4rem auto; padding: 0 1rem; color: #111; }
  label { display: block; margin-top: .75rem; }
  input { width: 100%; padding: .5rem; font-size: 1rem; box-sizing: border-box; }
  #user_code { font-family: ui-monospace, monospace; letter-spacing: .2em; text-transform: uppercase; }
  button { margin-top: 1rem; padding: .5rem 1rem; font-size: 1rem; }
  #message { min-height: 1.5rem; font-weight: 600; }
</style>
</head>
<body>
<h1>Approve device</h1>
${body}
<p id="message" role="status"></p>
<script>
const api = "/api/auth";
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
</script>
</body>
</html>
`;
}
