import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { ClaimSeat } from "./claim-seat.tsx";
import { PortalPage } from "./portal-page.tsx";
import "./portal.css";

const SESSION_KEY = "till_customer_session";
const params = new URLSearchParams(window.location.search);
document.documentElement.dataset.theme = params.get("theme") === "dark" ? "dark" : "light";

/**
 * The link mailed to a new address (/portal/verify-email?token=…) makes it the account's email and
 * answers with a new session; what happened is said at the top of the portal.
 */
async function verifyEmail(): Promise<{ token: string | null; notice: string | null }> {
  const emailToken = params.get("token");
  window.history.replaceState(null, "", "/portal");
  if (!emailToken) return { token: null, notice: "This link is incomplete." };
  const res = await fetch("/v1/customer-portal/customers/me/email-update/verify", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: emailToken }),
  }).catch(() => null);
  if (res?.ok) {
    const { token } = (await res.json()) as { token: string };
    sessionStorage.setItem(SESSION_KEY, token);
    return { token, notice: "Your email address is updated." };
  }
  return {
    token: sessionStorage.getItem(SESSION_KEY),
    notice:
      res?.status === 422
        ? "That email address is already used by another account."
        : "This link is invalid or has expired. Ask for a new one from your account.",
  };
}

// The token arrives in the link (?customer_session_token=…). It is kept for this tab only and
// removed from the address bar, so it does not end up in bookmarks, history or shared screenshots.
function sessionFromUrl(): string | null {
  const fromUrl = params.get("customer_session_token");
  if (fromUrl) {
    sessionStorage.setItem(SESSION_KEY, fromUrl);
    params.delete("customer_session_token");
    const rest = params.toString();
    window.history.replaceState(null, "", `${window.location.pathname}${rest ? `?${rest}` : ""}`);
  }
  return fromUrl ?? sessionStorage.getItem(SESSION_KEY);
}

const boot =
  window.location.pathname === "/portal/verify-email"
    ? verifyEmail()
    : Promise.resolve({ token: sessionFromUrl(), notice: null });

const root = createRoot(document.getElementById("root")!);
const invitationToken = params.get("invitation_token");

if (window.location.pathname === "/portal/claim" && invitationToken) {
  window.history.replaceState(null, "", "/portal/claim");
  root.render(
    <StrictMode>
      <ClaimSeat
        invitationToken={invitationToken}
        onClaimed={(token) => {
          sessionStorage.setItem(SESSION_KEY, token);
          window.history.replaceState(null, "", "/portal");
          root.render(
            <StrictMode>
              <PortalPage token={token} notice="Your seat is claimed." />
            </StrictMode>,
          );
        }}
      />
    </StrictMode>,
  );
} else {
  void boot.then(({ token, notice }) => {
    root.render(
      <StrictMode>
        <PortalPage token={token} notice={notice} />
      </StrictMode>,
    );
  });
}
