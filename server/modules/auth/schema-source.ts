// Used only by better-auth's schema generator (`npm run auth:schema`): the same plugins as the
// server, so the generated drizzle tables match what the running auth expects.
import { drizzle } from "drizzle-orm/postgres-js";
import { loadConfig } from "../../config.ts";
import { createAuth } from "./auth.ts";

const config = loadConfig({
  command: "cli",
  env: { CAPTCHA_PROVIDER: "cloudflare-turnstile", CAPTCHA_SECRET_KEY: "x" },
});

export const auth = createAuth({
  config,
  db: drizzle.mock() as never,
  mailer: { send: async () => {} },
});
