// `till checkouts`, `till checkout-links`, `till orders`, `till subscriptions`.
import type { Command } from "commander";
import { contextOf, organizationParam } from "../lib/command.ts";
import { CANCELLATION_REASONS, SUBSCRIPTION_STATUSES } from "../lib/choices.ts";
import { AbortError, ApiResponseError } from "../lib/errors.ts";
import { formatMoney } from "../lib/output.ts";
import {
  addDeleteCommand,
  addGetCommand,
  addListCommand,
  collect,
  parsePairs,
  printOne,
  type ResourceSpec,
} from "../lib/resource.ts";
import type { Checkout, CheckoutLink, Order, Subscription } from "../../shared/types.ts";

const checkoutSpec: ResourceSpec<Checkout> = {
  path: "/v1/checkouts/",
  noun: "checkout",
  columns: [
    { header: "id", value: (c) => c.id },
    { header: "status", value: (c) => c.status },
    { header: "product", value: (c) => c.product?.name },
    { header: "total", value: (c) => formatMoney(c.total_amount, c.currency) },
    { header: "customer", value: (c) => c.customer_email },
  ],
  fields: (c) => [
    ["id", c.id],
    ["status", c.status],
    ["product", c.product?.name],
    ["total", formatMoney(c.total_amount, c.currency)],
    ["customer", c.customer_email],
    ["expires", c.expires_at],
    ["url", c.url],
  ],
};

const linkSpec: ResourceSpec<CheckoutLink> = {
  path: "/v1/checkout-links/",
  noun: "checkout link",
  columns: [
    { header: "id", value: (l) => l.id },
    { header: "label", value: (l) => l.label },
    { header: "products", value: (l) => l.products.map((p) => p.name).join(", ") },
    { header: "url", value: (l) => l.url },
  ],
};

const orderSpec: ResourceSpec<Order> = {
  path: "/v1/orders/",
  noun: "order",
  columns: [
    { header: "id", value: (o) => o.id },
    { header: "created", value: (o) => o.created_at },
    { header: "customer", value: (o) => o.customer.email },
    { header: "product", value: (o) => o.product?.name },
    { header: "total", value: (o) => formatMoney(o.total_amount, o.currency) },
    { header: "status", value: (o) => o.status },
  ],
  fields: (o) => [
    ["id", o.id],
    ["created", o.created_at],
    ["status", o.status],
    ["reason", o.billing_reason],
    ["customer", `${o.customer.email} (${o.customer_id})`],
    ["product", o.product?.name],
    ["subscription", o.subscription_id],
    ["subtotal", formatMoney(o.subtotal_amount, o.currency)],
    ["discount", o.discount_amount ? formatMoney(-o.discount_amount, o.currency) : null],
    ["tax", formatMoney(o.tax_amount, o.currency)],
    ["total", formatMoney(o.total_amount, o.currency)],
    ["refunded", o.refunded_amount ? formatMoney(o.refunded_amount, o.currency) : null],
    ["next attempt", o.next_payment_attempt_at],
    ["invoice", o.invoice_number],
  ],
};

const subscriptionSpec: ResourceSpec<Subscription> = {
  path: "/v1/subscriptions/",
  noun: "subscription",
  columns: [
    { header: "id", value: (s) => s.id },
    { header: "customer", value: (s) => s.customer.email },
    { header: "product", value: (s) => s.product.name },
    { header: "amount", value: amountText },
    { header: "status", value: statusText },
  ],
  fields: (s) => [
    ["id", s.id],
    ["status", statusText(s)],
    ["customer", `${s.customer.email} (${s.customer_id})`],
    ["product", `${s.product.name} (${s.product_id})`],
    ["amount", amountText(s)],
    ["discount", s.discount?.name],
    ["started", s.started_at],
    ["trial ends", s.trial_end],
    ["period", `${s.current_period_start} → ${s.current_period_end}`],
    [
      "next",
      s.ended_at
        ? null
        : s.cancel_at_period_end
          ? "cancels at period end"
          : s.pause_at_period_end
            ? "pauses at period end"
            : s.status === "past_due"
              ? `payment owed since ${s.past_due_at}`
              : s.status === "trialing" && s.trial_end
                ? `first charge when the trial ends (${s.trial_end})`
                : "renews at period end",
    ],
    ["resumes", s.resumes_at],
    ["checkout", s.checkout_id],
  ],
};

/** What a cancel, uncancel or revoke left the subscription doing, in words. */
function changed(s: Subscription): string {
  if (s.ended_at) return `Subscription ${s.id} ended ${s.ended_at}.`;
  if (!s.cancel_at_period_end && s.status === "trialing" && s.trial_end)
    return `Subscription ${s.id} makes its first charge when the trial ends, ${s.trial_end}.`;
  return s.cancel_at_period_end
    ? `Subscription ${s.id} cancels at the end of its period, ${s.current_period_end}; until then it stays ${s.status}.`
    : `Subscription ${s.id} renews at the end of its period, ${s.current_period_end}.`;
}

/** "active", "active (cancels 2027-01-05)" or "canceled (ended 2026-12-05)". */
function statusText(s: Subscription): string {
  return s.ended_at
    ? `${s.status} (ended ${s.ended_at.slice(0, 10)})`
    : s.cancel_at_period_end
      ? `${s.status} (cancels ${s.current_period_end.slice(0, 10)})`
      : s.status;
}

/** "month", or "3 months" for a recurring_interval_count of 3. */
/** The fixed amount a period; usage is billed on top (as the portal says), so 0 is not the bill. */
function amountText(s: Subscription): string {
  const usage = s.prices.some((p) => p.amount_type === "metered_unit") ? " + usage" : "";
  return `${formatMoney(s.amount, s.currency)}/${interval(s)}${usage}`;
}

function interval(s: Subscription): string {
  const n = s.recurring_interval_count ?? 1;
  return n === 1 ? s.recurring_interval : `${n} ${s.recurring_interval}s`;
}

export function configureSalesCommands(program: Command): void {
  const checkouts = program.command("checkouts").description("checkout sessions");
  addListCommand(
    checkouts,
    checkoutSpec,
    (c) => c.option("--status <status>", "open | confirmed | succeeded | expired | failed"),
    (f) => ({ status: f.status as string | undefined }),
  );
  addGetCommand(checkouts, checkoutSpec);
  checkouts
    .command("create")
    .description("create a checkout session for one or more products")
    .requiredOption("--product <id>", "product to sell (repeatable)", collect)
    .option("--email <email>", "prefill the customer's email")
    .option("--discount <id>", "apply a discount")
    .option(
      "--success-url <url>",
      "where to send the customer after paying ({CHECKOUT_ID} is replaced)",
    )
    .option("--metadata <key=value>", "metadata (repeatable)", collect)
    .option("--open", "open the checkout page in the browser")
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .addHelpText("after", "\nExample:\n  $ till checkouts create --product <product-id> --open\n")
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { checkoutCreateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./sales-flags.ts"),
      ]);
      const flags = parseFlags(checkoutCreateFlags, raw);
      const ctx = await contextOf(c);
      const checkout = await ctx.api().post<Checkout>(checkoutSpec.path, {
        products: flags.product,
        customer_email: flags.email ?? null,
        discount_id: flags.discount ?? null,
        success_url: flags.successUrl ?? null,
        metadata: parsePairs(flags.metadata, "--metadata") ?? {},
        organization_id: await organizationParam(ctx, flags.org, { announce: true }),
      });
      printOne(ctx, checkoutSpec, checkout, "Created checkout.");
      if (flags.open) {
        const { openUrl } = await import("../services/browser.ts");
        openUrl(ctx, checkout.url);
      }
    });

  const links = program.command("checkout-links").description("reusable checkout links (/buy/...)");
  addListCommand(links, linkSpec);
  addGetCommand(links, linkSpec);
  addDeleteCommand(links, linkSpec);
  links
    .command("create")
    .description("create a checkout link for one or more products")
    .requiredOption("--product <id>", "product (repeatable)", collect)
    .option("--label <text>", "label for your own reference")
    .option("--success-url <url>", "where to send customers after paying")
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { linkCreateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./sales-flags.ts"),
      ]);
      const flags = parseFlags(linkCreateFlags, raw);
      const ctx = await contextOf(c);
      const link = await ctx.api().post<CheckoutLink>(linkSpec.path, {
        payment_processor: "stripe",
        products: flags.product,
        label: flags.label ?? null,
        success_url: flags.successUrl ?? null,
        organization_id: await organizationParam(ctx, flags.org, { announce: true }),
      });
      printOne(ctx, linkSpec, link, "Created checkout link.");
    });

  const orders = program.command("orders").description("paid orders");
  addListCommand(
    orders,
    orderSpec,
    (c) => c.option("--customer <id>", "one customer's orders"),
    (f) => ({ customer_id: f.customer as string | undefined }),
    ["customer"],
  );
  addGetCommand(orders, orderSpec);

  const subscriptions = program
    .command("subscriptions")
    .description("subscriptions: list, cancel, uncancel, revoke");
  addListCommand(
    subscriptions,
    subscriptionSpec,
    (c) =>
      c
        .option(
          "--status <status>",
          `only this status (repeatable): ${SUBSCRIPTION_STATUSES.join(" | ")}`,
          collect,
        )
        .option("--active", "only active, trialing or past due ones")
        .option("--canceling", "only those set to cancel at the end of their period")
        .option("--product <id>", "one product's (repeatable)", collect)
        .option("--customer <id>", "one customer's (repeatable)", collect),
    (f) => ({
      status: f.status as string[] | undefined,
      ...(f.active ? { active: true } : {}),
      ...(f.canceling ? { cancel_at_period_end: true } : {}),
      product_id: f.product as string[] | undefined,
      customer_id: f.customer as string[] | undefined,
    }),
    ["product", "customer"],
    async () => (await import("./sales-flags.ts")).subscriptionListFlags,
  );
  addGetCommand(subscriptions, subscriptionSpec);
  const update = (
    verb: string,
    body: (f: { reason?: string; comment?: string }) => Record<string, unknown>,
    options: { withReason?: boolean; refused?: (err: unknown, id: string) => unknown } = {},
  ) => {
    const command = subscriptions.command(`${verb} <id>`);
    if (options.withReason !== false)
      command
        .option("--reason <reason>", `why (${CANCELLATION_REASONS.join(", ")})`)
        .option("--comment <text>", "free-text comment");
    return command.action(async (_id: string, raw: unknown, c: Command) => {
      const [{ idArgs, parseArgs, parseFlags }, { subscriptionChangeFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./sales-flags.ts"),
      ]);
      const { id } = parseArgs(idArgs, c);
      const flags = parseFlags(subscriptionChangeFlags, raw);
      const ctx = await contextOf(c);
      const sub = await ctx
        .api()
        .patch<Subscription>(`${subscriptionSpec.path}${id}`, body(flags))
        .catch((err: unknown) => {
          throw options.refused?.(err, id) ?? err;
        });
      printOne(ctx, subscriptionSpec, sub, changed(sub));
    });
  };
  const reason = (f: { reason?: string; comment?: string }) => ({
    ...(f.reason ? { customer_cancellation_reason: f.reason } : {}),
    ...(f.comment ? { customer_cancellation_comment: f.comment } : {}),
  });
  update("cancel", (f) => ({ cancel_at_period_end: true, ...reason(f) })).description(
    "cancel at the end of the current period",
  );
  // Polar's answers to an uncancel with nothing to undo are a bare "Bad request" / "Unavailable".
  update("uncancel", () => ({ cancel_at_period_end: false }), {
    withReason: false,
    refused: (err, id) => {
      if (!(err instanceof ApiResponseError)) return undefined;
      if (err.status === 400 && err.error === "BadRequest")
        return new AbortError(
          `Subscription ${id} is not set to cancel at the end of its period (or is paused): nothing to undo.`,
        );
      if (err.status === 410)
        return new AbortError(`Subscription ${id} has ended: it can no longer be uncanceled.`);
      return undefined;
    },
  }).description("undo a pending cancellation");
  update("revoke", (f) => ({ revoke: true, ...reason(f) })).description("end the subscription now");
}
