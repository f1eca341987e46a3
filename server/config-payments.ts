// Which payment processor this server takes money with, from the parsed environment (config.ts is
// still the only reader of process.env).
import type { z } from "zod";
import type { envSchema } from "./config-schema.ts";
import { ConfigError } from "./config-sources.ts";

export interface StripeConfig {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  /** Where the Stripe API is (tests: a local server); null for api.stripe.com. */
  apiBase: string | null;
  /** Where the checkout page loads Stripe.js from. */
  jsUrl: string;
}

export interface PaymentsConfig {
  /** none: only free products can be bought. Production never uses sandbox. */
  processor: "sandbox" | "stripe" | "none";
  stripe: StripeConfig | null;
  /** A checkout left confirmed this long is resolved by asking the processor. */
  reconcileAfterSeconds: number;
}

const STRIPE_KEYS = [
  "STRIPE_SECRET_KEY",
  "STRIPE_PUBLISHABLE_KEY",
  "STRIPE_WEBHOOK_SECRET",
] as const;

/**
 * Production takes real money through Stripe or none at all: a server that would otherwise fall
 * back to the sandbox processor (and give paid products away) refuses to start, naming what is
 * missing. Tests, migrations and the CLI without keys get no processor instead.
 */
export function paymentsConfig(
  e: z.infer<typeof envSchema>,
  mode: "sandbox" | "production",
  command: string,
): PaymentsConfig {
  const missing = STRIPE_KEYS.filter((k) => !e[k]);
  const strict = command === "serve" || command === "worker" || command === "dev";
  const processor =
    e.TILL_PAYMENTS ??
    (mode === "sandbox" ? "sandbox" : strict || missing.length === 0 ? "stripe" : "none");
  if (mode === "production" && processor === "sandbox")
    throw new ConfigError(
      "Invalid configuration:\n  TILL_PAYMENTS: the sandbox processor is not available in production mode (use stripe, or none to sell only free products)",
    );
  if (processor === "stripe" && missing.length > 0)
    throw new ConfigError(
      `Invalid configuration:\n  ${missing.map((k) => `${k}: required to take payments with Stripe${mode === "production" ? " in production mode (or set TILL_PAYMENTS=none to sell only free products)" : ""}`).join("\n  ")}`,
    );
  return {
    processor,
    stripe:
      processor === "stripe"
        ? {
            secretKey: e.STRIPE_SECRET_KEY!,
            publishableKey: e.STRIPE_PUBLISHABLE_KEY!,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET!,
            apiBase: e.STRIPE_API_BASE?.replace(/\/+$/, "") ?? null,
            jsUrl: e.STRIPE_JS_URL,
          }
        : null,
    reconcileAfterSeconds: e.PAYMENTS_RECONCILE_AFTER_SECONDS,
  };
}
