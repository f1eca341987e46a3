// The credentials file: versioned JSON with named profiles under the XDG config dir, written 0600
// through a temporary file and a rename so a crash never leaves half a file.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { AbortError } from "./errors.ts";

const profileSchema = z.object({
  server: z.string(),
  token: z.string(),
  tokenKind: z.enum(["user", "organization"]),
  organizationId: z.string().nullable(),
  organizationSlug: z.string().nullable().default(null),
  userEmail: z.string().nullable(),
  expiresAt: z.string().nullable(),
});
export type Profile = z.output<typeof profileSchema>;

const storeSchema = z.object({
  version: z.literal(1),
  /** The profile used when neither --profile nor TILL_PROFILE names one (`till profiles use`). */
  current: z.string().optional(),
  profiles: z.record(z.string(), profileSchema),
  /** The server each logged-out profile used: its next `till login` goes there again. */
  servers: z.record(z.string(), z.string()).optional(),
});
export type Store = z.output<typeof storeSchema>;

export function storePath(configDir: string): string {
  return path.join(configDir, "credentials.json");
}

export function readStore(configDir: string): Store {
  const file = storePath(configDir);
  if (!existsSync(file)) return { version: 1, profiles: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new AbortError(`${file} is not valid JSON.`, {
      hint: "Delete it and run `till login` again.",
    });
  }
  const parsed = storeSchema.safeParse(raw);
  if (!parsed.success)
    throw new AbortError(`${file} is not a till credentials file this version understands.`, {
      hint: "Run `till logout` and `till login`.",
    });
  return parsed.data;
}

export function writeStore(configDir: string, store: Store): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const file = storePath(configDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

export function saveProfile(configDir: string, name: string, profile: Profile): void {
  const store = readStore(configDir);
  store.profiles[name] = profile;
  if (store.servers) delete store.servers[name];
  writeStore(configDir, store);
}

/** Forgets a profile altogether: its credentials and, once logged out, the server it used. */
export function forgetProfile(configDir: string, name: string): boolean {
  const store = readStore(configDir);
  const known = Boolean(store.profiles[name] || store.servers?.[name]);
  delete store.profiles[name];
  if (store.servers) delete store.servers[name];
  if (store.current === name) delete store.current;
  if (known) writeStore(configDir, store);
  return known;
}

/** Logs a profile out: its credentials go, the server it used stays for its next login. */
export function removeProfile(configDir: string, name: string): boolean {
  const store = readStore(configDir);
  const profile = store.profiles[name];
  if (!profile) return false;
  delete store.profiles[name];
  store.servers = { ...store.servers, [name]: profile.server };
  if (store.current === name) delete store.current;
  writeStore(configDir, store);
  return true;
}
