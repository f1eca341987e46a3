// The OAuth device flow (RFC 8628) against till's better-auth: ask for a code, show it, poll at the
// server's interval (slowing down when told), and stop clearly on denial or expiry.
import { AbortError, EXIT } from "../lib/errors.ts";
import type { ApiClient } from "../lib/api.ts";
import { ApiResponseError } from "../lib/errors.ts";

export const CLI_CLIENT_ID = "till-cli";

export interface DeviceCode {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export async function requestDeviceCode(api: ApiClient): Promise<DeviceCode> {
  return api.post<DeviceCode>("/api/auth/device/code", {
    client_id: CLI_CLIENT_ID,
    scope: "openid profile email",
  });
}

export interface PollOptions {
  sleep?: (ms: number) => Promise<void>;
  onSlowDown?: (intervalSeconds: number) => void;
}

/** Polls until the user approves; returns the session token. */
export async function pollForToken(
  api: ApiClient,
  code: DeviceCode,
  options: PollOptions = {},
): Promise<string> {
  const sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  let interval = Math.max(code.interval, 1);
  const deadline = Date.now() + code.expires_in * 1000;
  while (Date.now() < deadline) {
    await sleep(interval * 1000);
    try {
      const res = await api.post<{ access_token: string }>("/api/auth/device/token", {
        grant_type: "urn:ietf:params:oauth:grant-type:device_code",
        device_code: code.device_code,
        client_id: CLI_CLIENT_ID,
      });
      return res.access_token;
    } catch (err) {
      if (!(err instanceof ApiResponseError)) throw err;
      switch (err.error) {
        case "authorization_pending":
          continue;
        case "slow_down":
          interval += 5;
          options.onSlowDown?.(interval);
          continue;
        case "access_denied":
          throw new AbortError("Login was denied in the browser.", { exitCode: EXIT.auth });
        case "expired_token":
          throw new AbortError("The login code expired before it was approved.", {
            hint: "Run `till login` again.",
            exitCode: EXIT.auth,
          });
        default:
          throw err;
      }
    }
  }
  throw new AbortError("The login code expired before it was approved.", {
    hint: "Run `till login` again.",
    exitCode: EXIT.auth,
  });
}

export interface SessionInfo {
  user: { id: string; email: string; name: string };
  session: { expiresAt: string };
}

export async function fetchSession(api: ApiClient): Promise<SessionInfo | null> {
  return api.get<SessionInfo | null>("/api/auth/get-session");
}
