// better-auth's React client for sign-in, sessions and organizations (members, invitations, teams,
// roles). The active organization lives in the session, so every page reads the same one.
import { createAuthClient } from "better-auth/react";
import { organizationClient } from "better-auth/client/plugins";
import { createContext, useContext, useEffect, useState } from "react";

export const authClient = createAuthClient({
  basePath: "/api/auth",
  plugins: [
    organizationClient({ teams: { enabled: true }, dynamicAccessControl: { enabled: true } }),
  ],
});

export interface ServerInfo {
  email_password: boolean;
  sign_up: boolean;
  social: string[];
  sandbox: boolean;
}

let info: Promise<ServerInfo> | null = null;

/** What the server offers: social providers, whether sign-up is open, sandbox mode. Fetched once. */
export function useServerInfo(): ServerInfo | null {
  const [value, setValue] = useState<ServerInfo | null>(null);
  useEffect(() => {
    info ??= fetch("/api/auth-providers").then((r) => r.json() as Promise<ServerInfo>);
    info.then(setValue, () =>
      setValue({ email_password: true, sign_up: true, social: [], sandbox: false }),
    );
  }, []);
  return value;
}

/** better-auth answers {data, error}; this turns an error into a thrown Error with its message. */
export async function unwrap<T>(
  call: Promise<{
    data: T | null;
    error: { message?: string | undefined; status?: number } | null;
  }>,
): Promise<T> {
  const { data, error } = await call;
  if (error) throw new Error(error.message || `Request failed (HTTP ${error.status ?? "?"})`);
  return data as T;
}

export interface Org {
  id: string;
  name: string;
  slug: string;
}

/** The organization every page works in (the session's active one). */
export const OrgContext = createContext<Org | null>(null);

export function useOrg(): Org {
  const org = useContext(OrgContext);
  if (!org) throw new Error("useOrg() outside an organization");
  return org;
}
