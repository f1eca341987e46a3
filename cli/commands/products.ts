// `till products list|get|create|update|archive`.
import type { Command } from "commander";
import { contextOf, organizationParam } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";
import { formatMoney, formatUnitMoney } from "../lib/output.ts";
import {
  addGetCommand,
  addListCommand,
  collect,
  idOf,
  parsePairs,
  printOne,
  type ResourceSpec,
} from "../lib/resource.ts";
import type { Price, Product } from "../../shared/types.ts";
import type { PriceFlags } from "./product-flags.ts";

/** A pay-what-you-want price with the bounds and preset the buyer sees, as the API gives them. */
function describeCustom(p: Extract<Price, { amount_type: "custom" }>): string {
  const bounds: [string, number | null | undefined][] = [
    ["min", p.minimum_amount],
    ["max", p.maximum_amount],
    ["preset", p.preset_amount],
  ];
  const parts = bounds.flatMap(([label, value]) =>
    value === null || value === undefined
      ? []
      : [`${label} ${formatMoney(value, p.price_currency)}`],
  );
  return parts.length > 0 ? `custom (${parts.join(", ")})` : "custom";
}

const describePrice = (p: Price | undefined) =>
  !p
    ? "-"
    : p.amount_type === "fixed"
      ? formatMoney(p.price_amount, p.price_currency)
      : p.amount_type === "metered_unit"
        ? `${formatUnitMoney(p.unit_amount, p.price_currency)}/unit`
        : p.amount_type === "custom"
          ? describeCustom(p)
          : p.amount_type;

export const productSpec: ResourceSpec<Product> = {
  path: "/v1/products/",
  noun: "product",
  columns: [
    { header: "id", value: (p) => p.id },
    { header: "name", value: (p) => p.name },
    { header: "price", value: (p) => describePrice(p.prices.find((x) => !x.is_archived)) },
    { header: "interval", value: (p) => p.recurring_interval ?? "one-time" },
    { header: "archived", value: (p) => (p.is_archived ? "yes" : "") },
  ],
  fields: (p) => [
    ["id", p.id],
    ["name", p.name],
    ["description", p.description],
    ["billing", p.recurring_interval ? `every ${p.recurring_interval}` : "one-time"],
    [
      "trial",
      p.trial_interval
        ? `${p.trial_interval_count} ${p.trial_interval}${p.trial_interval_count === 1 ? "" : "s"}`
        : "-",
    ],
    [
      "prices",
      p.prices
        .filter((x) => !x.is_archived)
        .map(describePrice)
        .join(", "),
    ],
    ["benefits", p.benefits.map((b) => b.description).join(", ") || "-"],
    ["archived", p.is_archived],
    ["created", p.created_at],
  ],
};

function amount(value: string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

function priceFromFlags(f: PriceFlags): Record<string, unknown> {
  const currency = f.currency.toLowerCase();
  switch (f.priceType) {
    case "fixed":
      if (f.price === undefined)
        throw new AbortError(
          "--price is required for a fixed price (e.g. --price 1500 for 15.00).",
          { exitCode: EXIT.usage },
        );
      return {
        amount_type: "fixed",
        price_amount: amount(f.price),
        price_currency: currency,
      };
    case "free":
      return { amount_type: "free" };
    case "custom":
      return {
        amount_type: "custom",
        price_currency: currency,
        minimum_amount: amount(f.min) ?? 50,
        maximum_amount: amount(f.max) ?? null,
        preset_amount: amount(f.preset) ?? null,
      };
    case "metered":
      if (!f.meter || !f.unitAmount)
        throw new AbortError("--meter and --unit-amount are required for a metered price.", {
          exitCode: EXIT.usage,
        });
      return {
        amount_type: "metered_unit",
        price_currency: currency,
        meter_id: f.meter,
        unit_amount: f.unitAmount,
        cap_amount: amount(f.cap) ?? null,
      };
  }
}

function priceOptions(cmd: Command): Command {
  return cmd
    .option("--price <cents>", "fixed price in minor units, e.g. 1500 for 15.00")
    .option("--currency <code>", "ISO currency", "usd")
    .option("--price-type <type>", "fixed | custom | free | metered", "fixed")
    .option("--meter <id>", "meter for a metered price")
    .option("--unit-amount <decimal>", "metered price per unit in minor units, e.g. 0.5")
    .option("--cap <cents>", "metered price cap")
    .option("--min <cents>", "custom price minimum")
    .option("--max <cents>", "custom price maximum")
    .option("--preset <cents>", "custom price preset");
}

export function configureProductCommands(program: Command): void {
  const products = program.command("products").description("products and their prices");
  addListCommand(
    products,
    productSpec,
    (c) =>
      c
        .option("--query <text>", "search by name")
        .option("--archived", "show archived products")
        .option("--recurring", "only subscriptions")
        .option("--one-time", "only one-time products"),
    (f) => ({
      query: f.query as string | undefined,
      is_archived: Boolean(f.archived),
      ...(f.recurring ? { is_recurring: true } : f.oneTime ? { is_recurring: false } : {}),
    }),
  );
  addGetCommand(products, productSpec);

  priceOptions(
    products
      .command("create")
      .description("create a product with one price")
      .requiredOption("--name <name>", "product name")
      .option("--description <text>", "description (markdown)")
      .option("--recurring <interval>", "bill every day | week | month | year (omit for one-time)")
      .option("--trial <duration>", "free trial before the first charge: 14d, 2w, 1mo, 1y")
      .option("--benefit <id>", "attach a benefit (repeatable)", collect)
      .option("--metadata <key=value>", "metadata (repeatable)", collect)
      .option("--org <id-or-slug>", "organization (default: the profile's)"),
  )
    .addHelpText(
      "after",
      '\nExamples:\n  $ till products create --name Pro --price 1500 --recurring month\n  $ till products create --name Team --price 4900 --recurring month --trial 14d\n  $ till products create --name "API calls" --price-type metered --meter <meter-id> --unit-amount 0.5 --recurring month\n',
    )
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { productCreateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./product-flags.ts"),
      ]);
      const flags = parseFlags(productCreateFlags, raw);
      const ctx = await contextOf(c);
      const body = {
        name: flags.name,
        description: flags.description ?? null,
        recurring_interval: flags.recurring ?? null,
        ...(flags.trial
          ? { trial_interval: flags.trial.interval, trial_interval_count: flags.trial.count }
          : {}),
        prices: [priceFromFlags(flags)],
        metadata: parsePairs(flags.metadata, "--metadata") ?? {},
        organization_id: await organizationParam(ctx, flags.org, { announce: true }),
      };
      let product = await ctx.api().post<Product>(productSpec.path, body);
      if (flags.benefit?.length)
        product = await ctx
          .api()
          .post<Product>(`${productSpec.path}${product.id}/benefits`, { benefits: flags.benefit });
      printOne(ctx, productSpec, product, `Created product ${product.id}.`);
    });

  products
    .command("update <id>")
    .description("rename, describe or re-price a product (new prices replace the old ones)")
    .option("--name <name>", "new name")
    .option("--description <text>", "new description")
    .option("--price <cents>", "replace the price with this fixed amount")
    .option("--currency <code>", "currency of the new price", "usd")
    .option("--metadata <key=value>", "replace metadata (repeatable)", collect)
    .action(async (_id: string, raw: unknown, c: Command) => {
      const [{ idArgs, parseArgs, parseFlags }, { productUpdateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./product-flags.ts"),
      ]);
      const { id } = parseArgs(idArgs, c);
      const flags = parseFlags(productUpdateFlags, raw);
      const ctx = await contextOf(c);
      const body: Record<string, unknown> = {};
      if (flags.name) body.name = flags.name;
      if (flags.description !== undefined) body.description = flags.description;
      if (flags.price !== undefined)
        body.prices = [priceFromFlags({ ...flags, priceType: "fixed" })];
      const metadata = parsePairs(flags.metadata, "--metadata");
      if (metadata) body.metadata = metadata;
      if (Object.keys(body).length === 0)
        throw new AbortError(
          "Nothing to update: pass --name, --description, --price or --metadata.",
          { exitCode: EXIT.usage },
        );
      printOne(
        ctx,
        productSpec,
        await ctx.api().patch<Product>(`${productSpec.path}${id}`, body),
        `Updated product ${id}.`,
      );
    });

  for (const [verb, archived] of [
    ["archive", true],
    ["unarchive", false],
  ] as const) {
    products
      .command(`${verb} <id>`)
      .description(`${verb} a product (archived products cannot be bought; orders keep them)`)
      .action(async (_id: string, _f, c: Command) => {
        const { id } = await idOf(c);
        const ctx = await contextOf(c);
        const product = await ctx
          .api()
          .patch<Product>(`${productSpec.path}${id}`, { is_archived: archived });
        printOne(
          ctx,
          productSpec,
          product,
          `${archived ? "Archived" : "Unarchived"} product ${id}.`,
        );
      });
  }
}
