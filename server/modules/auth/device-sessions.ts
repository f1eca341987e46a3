// Device-flow sessions (the CLI's) are ordinary better-auth sessions, so "revoke other sessions"
// from the browser would silently log the CLI out. We record which client obtained a session;
// /revoke-other-sessions (hashed-sessions.ts) keeps device sessions unless the body asks
// `{"revokeDeviceSessions": true}`. /revoke-sessions, /revoke-session on that token, a password
// reset and change-password with revokeOtherSessions still end them: those are explicit "sign me
// out everywhere" actions.
import type { GenericEndpointContext } from "better-auth";

type HookContext = GenericEndpointContext | null | undefined;

export function markDeviceSession<T extends object>(
  session: T,
  ctx: HookContext,
): T & { clientId: string | null } {
  const body = ctx?.body as { client_id?: unknown } | undefined;
  const clientId =
    ctx?.path === "/device/token" && typeof body?.client_id === "string" ? body.client_id : null;
  return { ...session, clientId };
}
