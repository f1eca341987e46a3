// What the billing engine needs: the database, the process clock (each organization's sandbox
// offset is added per piece of work), the processor for off-session charges, tax, the mailer for
// dunning emails, and the retry schedule.
import type { Db } from "../../../db/client.ts";
import type { QueueHandle } from "../../jobs/queue.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Mailer } from "../email/mailer.ts";
import type { PaymentProcessor } from "../payments/processor.ts";
import type { TaxCalculator } from "../tax/calculator.ts";

export interface BillingDeps {
  db: Db;
  clock: Clock;
  baseUrl: string;
  queue: QueueHandle | null;
  processor: PaymentProcessor;
  tax: TaxCalculator;
  mailer: Mailer | null;
  /** Days after each failed renewal attempt before the next one; after the last, it ends. */
  retryDays: readonly number[];
}
