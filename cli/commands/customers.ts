// `till customers ...`, `till discounts ...`, `till benefits ...`.
import type { Command } from "commander";
import { contextOf, organizationParam } from "../lib/command.ts";
import { BENEFIT_TYPES, DISCOUNT_DURATIONS } from "../lib/choices.ts";
import { AbortError, EXIT } from "../lib/errors.ts";
import { formatMoney, renderFields } from "../lib/output.ts";
import {
  addDeleteCommand,
  addGetCommand,
  addListCommand,
  collect,
  idOf,
  parsePairs,
  printOne,
  type ResourceSpec,
} from "../lib/resource.ts";
import type { Benefit, Customer, Discount } from "../../shared/types.ts";

const customerSpec: ResourceSpec<Customer> = {
  path: "/v1/customers/",
  noun: "customer",
  columns: [
    { header: "id", value: (c) => c.id },
    { header: "email", value: (c) => c.email },
    { header: "name", value: (c) => c.name },
    { header: "external id", value: (c) => c.external_id },
  ],
};

const discountSpec: ResourceSpec<Discount> = {
  path: "/v1/discounts/",
  noun: "discount",
  columns: [
    { header: "id", value: (d) => d.id },
    { header: "name", value: (d) => d.name },
    { header: "code", value: (d) => d.code },
    {
      header: "off",
      value: (d) =>
        d.type === "percentage"
          ? `${(d.basis_points ?? 0) / 100}%`
          : formatMoney(d.amount, d.currency),
    },
    { header: "duration", value: (d) => d.duration },
    {
      header: "used",
      value: (d) => `${d.redemptions_count}${d.max_redemptions ? `/${d.max_redemptions}` : ""}`,
    },
  ],
};

const benefitSpec: ResourceSpec<Benefit> = {
  path: "/v1/benefits/",
  noun: "benefit",
  columns: [
    { header: "id", value: (b) => b.id },
    { header: "type", value: (b) => b.type },
    { header: "description", value: (b) => b.description },
  ],
};

export function configureCustomerCommands(program: Command): void {
  const customers = program.command("customers").description("customers and their state");
  addListCommand(
    customers,
    customerSpec,
    (c) => c.option("--email <email>", "exact email").option("--query <text>", "search"),
    (f) => ({ email: f.email as string | undefined, query: f.query as string | undefined }),
  );
  addGetCommand(customers, customerSpec);
  addDeleteCommand(customers, customerSpec);
  customers
    .command("create")
    .description("create a customer")
    .requiredOption("--email <email>", "email address")
    .option("--name <name>", "name")
    .option("--external-id <id>", "your id for this customer")
    .option("--metadata <key=value>", "metadata (repeatable)", collect)
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { customerCreateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./customer-flags.ts"),
      ]);
      const flags = parseFlags(customerCreateFlags, raw);
      const ctx = await contextOf(c);
      const body = {
        type: "individual",
        email: flags.email,
        name: flags.name ?? null,
        external_id: flags.externalId ?? null,
        metadata: parsePairs(flags.metadata, "--metadata") ?? {},
        organization_id: await organizationParam(ctx, flags.org, { announce: true }),
      };
      printOne(
        ctx,
        customerSpec,
        await ctx.api().post<Customer>(customerSpec.path, body),
        "Created customer.",
      );
    });
  customers
    .command("update <id>")
    .description("update a customer's email, name or external id")
    .option("--email <email>", "email address")
    .option("--name <name>", "name")
    .option("--external-id <id>", "your id for this customer")
    .action(async (_id: string, raw: unknown, c: Command) => {
      const [{ idArgs, parseArgs, parseFlags }, { customerUpdateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./customer-flags.ts"),
      ]);
      const { id } = parseArgs(idArgs, c);
      const flags = parseFlags(customerUpdateFlags, raw);
      const ctx = await contextOf(c);
      const body = Object.fromEntries(
        Object.entries({
          email: flags.email,
          name: flags.name,
          external_id: flags.externalId,
        }).filter(([, v]) => v !== undefined),
      );
      if (Object.keys(body).length === 0)
        throw new AbortError("Nothing to update: pass --email, --name or --external-id.", {
          exitCode: EXIT.usage,
        });
      printOne(
        ctx,
        customerSpec,
        await ctx.api().patch<Customer>(`${customerSpec.path}${id}`, body),
      );
    });
  customers
    .command("state <id>")
    .description("active subscriptions, granted benefits and meters of a customer")
    .action(async (_id: string, _f, c: Command) => {
      const { id } = await idOf(c);
      const ctx = await contextOf(c);
      const state = await ctx.api().get<{
        email: string;
        active_subscriptions: unknown[];
        granted_benefits: unknown[];
        active_meters: unknown[];
      }>(`${customerSpec.path}${id}/state`);
      ctx.out.result(state, () =>
        renderFields(
          [
            ["customer", state.email],
            ["subscriptions", state.active_subscriptions.length],
            ["benefits", state.granted_benefits.length],
            ["meters", state.active_meters.length],
          ],
          ctx.out,
        ),
      );
    });

  const discounts = program.command("discounts").description("discount codes");
  addListCommand(discounts, discountSpec);
  addGetCommand(discounts, discountSpec);
  addDeleteCommand(discounts, discountSpec);
  discounts
    .command("create")
    .description("create a fixed or percentage discount")
    .requiredOption("--name <name>", "name shown to customers")
    .option("--code <code>", "code customers type at checkout")
    .option("--percent <n>", "percentage off (e.g. 20 or 12.5)")
    .option("--amount <cents>", "fixed amount off in minor units")
    .option("--currency <code>", "currency of a fixed amount", "usd")
    .option("--duration <d>", DISCOUNT_DURATIONS.join(" | "), "once")
    .option("--months <n>", "months for a repeating discount")
    .option("--max-redemptions <n>", "how many times it can be used")
    .option("--product <id>", "only for this product (repeatable)", collect)
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .addHelpText(
      "after",
      "\nExample:\n  $ till discounts create --name Launch --code LAUNCH20 --percent 20 --duration repeating --months 3 --max-redemptions 100\n",
    )
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { discountCreateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./customer-flags.ts"),
      ]);
      const flags = parseFlags(discountCreateFlags, raw);
      const ctx = await contextOf(c);
      const off =
        flags.percent !== undefined
          ? { type: "percentage", basis_points: Math.round(flags.percent * 100) }
          : { type: "fixed", amount: flags.amount, currency: flags.currency.toLowerCase() };
      const body = {
        name: flags.name,
        code: flags.code ?? null,
        ...off,
        duration: flags.duration,
        ...(flags.duration === "repeating" ? { duration_in_months: flags.months } : {}),
        max_redemptions: flags.maxRedemptions ?? null,
        products: flags.product ?? null,
        organization_id: await organizationParam(ctx, flags.org, { announce: true }),
      };
      printOne(
        ctx,
        discountSpec,
        await ctx.api().post<Discount>(discountSpec.path, body),
        "Created discount.",
      );
    });

  discounts
    .command("update <id>")
    .description("rename a discount, change its code or how many times it can be used")
    .option("--name <name>", "name shown to customers")
    .option("--code <code>", "code customers type at checkout")
    .option("--max-redemptions <n>", "how many times it can be used")
    .action(async (_id: string, raw: unknown, c: Command) => {
      const [{ idArgs, parseArgs, parseFlags }, { discountUpdateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./customer-flags.ts"),
      ]);
      const { id } = parseArgs(idArgs, c);
      const flags = parseFlags(discountUpdateFlags, raw);
      const body = Object.fromEntries(
        Object.entries({
          name: flags.name,
          code: flags.code,
          max_redemptions: flags.maxRedemptions,
        }).filter(([, v]) => v !== undefined),
      );
      if (Object.keys(body).length === 0)
        throw new AbortError("Nothing to update: pass --name, --code or --max-redemptions.", {
          exitCode: EXIT.usage,
        });
      const ctx = await contextOf(c);
      printOne(
        ctx,
        discountSpec,
        await ctx.api().patch<Discount>(`${discountSpec.path}${id}`, body),
        "Updated discount.",
      );
    });

  const benefits = program.command("benefits").description("what a purchase grants");
  addListCommand(
    benefits,
    benefitSpec,
    (c) => c.option("--type <type>", "only this type"),
    (f) => ({ type: f.type as string | undefined }),
  );
  addGetCommand(benefits, benefitSpec);
  addDeleteCommand(benefits, benefitSpec);
  benefits
    .command("create")
    .description("create a benefit (custom note, license keys, ...)")
    .requiredOption("--type <type>", BENEFIT_TYPES.join(" | "))
    .requiredOption("--description <text>", "what the customer gets")
    .option(
      "--property <key=value>",
      "type-specific property (repeatable), e.g. note=... or prefix=KEY",
      collect,
    )
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .addHelpText(
      "after",
      '\nExample:\n  $ till benefits create --type custom --description "Priority support" --property note="Email support@example.com"\n',
    )
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { benefitCreateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./customer-flags.ts"),
      ]);
      const flags = parseFlags(benefitCreateFlags, raw);
      const ctx = await contextOf(c);
      const body = {
        type: flags.type,
        description: flags.description,
        properties: parsePairs(flags.property, "--property") ?? {},
        organization_id: await organizationParam(ctx, flags.org, { announce: true }),
      };
      printOne(
        ctx,
        benefitSpec,
        await ctx.api().post<Benefit>(benefitSpec.path, body),
        "Created benefit.",
      );
    });
}
