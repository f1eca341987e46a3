// The processor a server takes payments with, as configured (TILL_PAYMENTS and the Stripe keys).
import type { Db } from "../../../db/client.ts";
import type { PaymentsConfig } from "../../config.ts";
import { createNoProcessor } from "./none.ts";
import type { PaymentProcessor } from "./processor.ts";
import { createSandboxProcessor } from "./sandbox-processor.ts";
import { createStripeClient } from "./stripe/client.ts";
import { createStripeProcessor } from "./stripe/processor.ts";

export function createProcessor(config: PaymentsConfig, db: Db): PaymentProcessor {
  if (config.processor === "sandbox") return createSandboxProcessor({ db });
  if (config.processor === "stripe" && config.stripe)
    return createStripeProcessor(createStripeClient(config.stripe));
  return createNoProcessor();
}
