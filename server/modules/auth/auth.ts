// The better-auth instance for one server.
import { betterAuth } from "better-auth";
import { buildAuthOptions, buildPlugins, type AuthOptionsDeps } from "./options.ts";

export function createAuth(deps: AuthOptionsDeps) {
  const { core, optional } = buildPlugins(deps);
  return betterAuth({ ...buildAuthOptions(deps), plugins: [...core, ...(optional as [])] });
}

export type Auth = ReturnType<typeof createAuth>;
