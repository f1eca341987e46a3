// `till refunds`, `till license-keys`, `till webhooks endpoints|deliveries|redeliver`.
import type { Command } from "commander";
import { contextOf, organizationParam } from "../lib/command.ts";
import { REFUND_REASONS } from "../lib/choices.ts";
import { AbortError, EXIT } from "../lib/errors.ts";
import { formatMoney } from "../lib/output.ts";
import {
  addDeleteCommand,
  addGetCommand,
  addListCommand,
  collect,
  idOf,
  printOne,
  type ResourceSpec,
} from "../lib/resource.ts";
import type {
  LicenseKey,
  Refund,
  WebhookDelivery as Delivery,
  WebhookEndpoint as Endpoint,
} from "../../shared/types.ts";

const refundSpec: ResourceSpec<Refund> = {
  path: "/v1/refunds/",
  noun: "refund",
  columns: [
    { header: "id", value: (r) => r.id },
    { header: "order", value: (r) => r.order_id },
    { header: "amount", value: (r) => formatMoney(r.amount, r.currency) },
    { header: "reason", value: (r) => r.reason },
    { header: "status", value: (r) => r.status },
  ],
};

const keySpec: ResourceSpec<LicenseKey> = {
  path: "/v1/license-keys/",
  noun: "license key",
  columns: [
    { header: "id", value: (k) => k.id },
    { header: "key", value: (k) => k.display_key },
    { header: "status", value: (k) => k.status },
    { header: "usage", value: (k) => `${k.usage}${k.limit_usage ? `/${k.limit_usage}` : ""}` },
    { header: "expires", value: (k) => k.expires_at ?? "never" },
  ],
};

const endpointSpec: ResourceSpec<Endpoint> = {
  path: "/v1/webhooks/endpoints/",
  noun: "webhook endpoint",
  columns: [
    { header: "id", value: (e) => e.id },
    { header: "url", value: (e) => e.url },
    { header: "events", value: (e) => e.events.length },
    { header: "enabled", value: (e) => (e.enabled ? "yes" : "no") },
  ],
  fields: (e) => [
    ["id", e.id],
    ["url", e.url],
    ["name", e.name],
    ["format", e.format],
    ["events", e.events.join(", ")],
    ["enabled", e.enabled],
    ["secret", e.secret],
  ],
};

const deliverySpec: ResourceSpec<Delivery> = {
  path: "/v1/webhooks/deliveries/",
  noun: "delivery",
  plural: "deliveries",
  columns: [
    { header: "time", value: (d) => d.created_at },
    { header: "event", value: (d) => d.webhook_event.type },
    { header: "event id", value: (d) => d.webhook_event.id },
    { header: "status", value: (d) => d.http_code ?? "-" },
    { header: "ok", value: (d) => (d.succeeded ? "yes" : "no") },
  ],
};

export function configureOpsCommands(program: Command): void {
  const refunds = program.command("refunds").description("refunds of orders");
  addListCommand(
    refunds,
    refundSpec,
    (c) => c.option("--order <id>", "one order's refunds"),
    (f) => ({ order_id: f.order as string | undefined }),
    ["order"],
  );
  refunds
    .command("create")
    .description("refund part or all of an order")
    .requiredOption("--order <id>", "order to refund")
    .requiredOption("--amount <cents>", "amount in minor units (before tax)")
    .option("--reason <reason>", `why (${REFUND_REASONS.join(", ")})`, "customer_request")
    .option("--comment <text>", "note for your records")
    .option("--revoke-benefits", "also revoke what the order granted (one-time orders only)")
    .addHelpText(
      "after",
      "\nExample:\n  $ till refunds create --order <order-id> --amount 500 --reason customer_request\n",
    )
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { refundCreateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./ops-flags.ts"),
      ]);
      const flags = parseFlags(refundCreateFlags, raw);
      const ctx = await contextOf(c);
      const refund = await ctx.api().post<Refund>(refundSpec.path, {
        order_id: flags.order,
        amount: flags.amount,
        reason: flags.reason,
        comment: flags.comment ?? null,
        revoke_benefits: Boolean(flags.revokeBenefits),
      });
      printOne(ctx, refundSpec, refund, `Refund ${refund.status}.`);
    });

  const keys = program.command("license-keys").description("license keys granted to customers");
  addListCommand(keys, keySpec);
  addGetCommand(keys, keySpec);
  keys
    .command("update <id>")
    .description("disable, re-enable or change the limits of a key")
    .option("--status <status>", "granted | disabled | revoked")
    .option("--limit-usage <n>", "usage limit")
    .option("--limit-activations <n>", "activation limit")
    .action(async (_id: string, raw: unknown, c: Command) => {
      const [{ idArgs, parseArgs, parseFlags }, { licenseKeyUpdateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./ops-flags.ts"),
      ]);
      const { id } = parseArgs(idArgs, c);
      const flags = parseFlags(licenseKeyUpdateFlags, raw);
      const ctx = await contextOf(c);
      const body = Object.fromEntries(
        Object.entries({
          status: flags.status,
          limit_usage: flags.limitUsage,
          limit_activations: flags.limitActivations,
        }).filter(([, v]) => v !== undefined),
      );
      if (Object.keys(body).length === 0)
        throw new AbortError(
          "Nothing to update: pass --status, --limit-usage or --limit-activations.",
          { exitCode: EXIT.usage },
        );
      printOne(ctx, keySpec, await ctx.api().patch<LicenseKey>(`${keySpec.path}${id}`, body));
    });
  keys
    .command("validate <key>")
    .description("check a key as your app would (with an organization token)")
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .action(async (_key: string, flags, c: Command) => {
      const [{ parseArgs }, { licenseKeyValidateArgs }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./ops-flags.ts"),
      ]);
      const { key } = parseArgs(licenseKeyValidateArgs, c);
      const ctx = await contextOf(c);
      const res = await ctx.api().post<LicenseKey>("/v1/license-keys/validate", {
        key,
        organization_id: await organizationParam(ctx, flags.org, { announce: true }),
      });
      printOne(ctx, keySpec, res, "Valid.");
    });

  const webhooks = program
    .command("webhooks")
    .description("webhook endpoints, the delivery log, redelivery");
  const endpoints = webhooks.command("endpoints").description("where events are sent");
  addListCommand(endpoints, endpointSpec);
  addGetCommand(endpoints, endpointSpec);
  addDeleteCommand(endpoints, endpointSpec);
  endpoints
    .command("create")
    .description("send events to a URL; prints its signing secret")
    .requiredOption("--url <url>", "HTTPS URL (http://localhost in sandbox mode)")
    .requiredOption("--event <type>", "event type to send (repeatable), e.g. order.paid", collect)
    .option("--name <name>", "a name for your records")
    .option("--format <format>", "raw | discord | slack", "raw")
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .addHelpText(
      "after",
      "\nExample:\n  $ till webhooks endpoints create --url https://example.com/hooks --event order.paid --event subscription.active\n",
    )
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { endpointCreateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./ops-flags.ts"),
      ]);
      const flags = parseFlags(endpointCreateFlags, raw);
      const ctx = await contextOf(c);
      const e = await ctx.api().post<Endpoint>(endpointSpec.path, {
        url: flags.url,
        events: flags.event,
        name: flags.name ?? null,
        format: flags.format,
        organization_id: await organizationParam(ctx, flags.org, { announce: true }),
      });
      printOne(ctx, endpointSpec, e, "Created webhook endpoint.");
    });
  for (const [verb, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    endpoints
      .command(`${verb} <id>`)
      .description(`${verb} an endpoint`)
      .action(async (_id: string, _f, c: Command) => {
        const { id } = await idOf(c);
        const ctx = await contextOf(c);
        printOne(
          ctx,
          endpointSpec,
          await ctx.api().patch<Endpoint>(`${endpointSpec.path}${id}`, { enabled }),
        );
      });
  }
  endpoints
    .command("reset-secret <id>")
    .description("replace the endpoint's signing secret")
    .action(async (_id: string, _f, c: Command) => {
      const { id } = await idOf(c);
      const ctx = await contextOf(c);
      printOne(
        ctx,
        endpointSpec,
        await ctx.api().patch<Endpoint>(`${endpointSpec.path}${id}/secret`, {}),
        "New secret set.",
      );
    });
  const deliveries = webhooks.command("deliveries").description("the delivery log");
  addListCommand(
    deliveries,
    deliverySpec,
    (c) =>
      c
        .option("--endpoint <id>", "one endpoint's deliveries")
        .option("--failed", "only failed ones"),
    (f) => ({
      endpoint_id: f.endpoint as string | undefined,
      ...(f.failed ? { succeeded: false } : {}),
    }),
    ["endpoint"],
  );
  webhooks
    .command("redeliver <event-id>")
    .description("send an event again to its endpoints (same webhook-id)")
    .action(async (_id: string, _f, c: Command) => {
      const { eventIdArgs, parseArgs } = await import("../lib/flags.ts");
      const { eventId } = parseArgs(eventIdArgs, c);
      const ctx = await contextOf(c);
      await ctx.api().post(`/v1/webhooks/events/${eventId}/redeliver`, {});
      ctx.out.result(
        { event_id: eventId, redelivered: true },
        () => `Redelivery of ${eventId} queued.`,
      );
    });
}
