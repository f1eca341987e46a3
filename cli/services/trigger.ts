// `till trigger <event>`: runs fixtures (real API requests on sandbox objects, trigger-recipes.ts)
// whose changes fire the event, so a developer can exercise a webhook handler end to end, with
// --override/--add changes to the requests. Refuses on a production server.
import type { FixtureChange } from "../commands/trigger-flags.ts";
import type { CommandContext } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";
import { type Fixture, pick, runFixtures, setPath } from "../lib/fixtures.ts";
import { TRIGGERS } from "./trigger-recipes.ts";

export { TRIGGERS };

/** Short names for the paths people change most, as `--override price:amount=2000`. */
const ALIASES: Record<string, string> = {
  "price:amount": "product:prices.0.price_amount",
  "price:currency": "product:prices.0.price_currency",
};

export interface TriggerOptions {
  organizationId: string | undefined;
  overrides: FixtureChange[];
  adds: FixtureChange[];
}

export function applyChanges(fixtures: Fixture[], changes: FixtureChange[], flag: string): void {
  for (const { text: change, target: given, value } of changes) {
    const target = ALIASES[given] ?? given;
    const colon = target.indexOf(":");
    const name = colon > 0 ? target.slice(0, colon) : null;
    const path = colon > 0 ? target.slice(colon + 1) : target;
    // Without a fixture name the change applies to every creating request that has that field
    // (metadata.key goes on the product, the checkout, the customer).
    const top = path.split(".")[0]!;
    const targets = fixtures.filter((f) =>
      name ? f.name === name : f.method === "post" && top in f.params,
    );
    if (targets.length === 0)
      throw new AbortError(
        `${flag} ${change}: ${name ? `no fixture "${name}"` : `no request with "${top}"`} in this trigger.`,
        {
          hint: `Its fixtures: ${fixtures.map((f) => f.name).join(", ")}`,
          exitCode: EXIT.usage,
        },
      );
    for (const f of targets) setPath(f.params, path, value);
  }
}

export async function trigger(
  ctx: CommandContext,
  event: string,
  options: TriggerOptions,
): Promise<void> {
  const recipe = TRIGGERS[event];
  // The command's argument schema (triggerArgs) refuses an unknown event: reaching here is a bug.
  if (!recipe) throw new Error(`No trigger for "${event}".`);
  const fixtures = structuredClone(recipe(options.organizationId));
  applyChanges(fixtures, options.overrides, "--override");
  applyChanges(fixtures, options.adds, "--add");
  const ready = await ctx.anonymousApi().get<{ mode?: string }>("/readyz");
  if (ready.mode !== "sandbox")
    throw new AbortError(
      `${ctx.session.server} runs in production mode; till trigger only makes test purchases in sandbox mode.`,
    );
  const answers = await runFixtures(ctx.api(), fixtures, (r) => {
    if (!ctx.out.json)
      ctx.out.note(
        ctx.out.dim(
          `${r.reused ? "reused" : `${r.method.toUpperCase()} ${r.path}`} → ${r.name} ${String(pick(r.response, "id") ?? pick(r.response, "items.0.id") ?? "")}`.trim(),
        ),
      );
  });
  const id = (name: string, path = "id") =>
    answers.has(name) ? (pick(answers.get(name), path) as string | undefined) : undefined;
  // snake_case, as the API's fields and the rest of the CLI's --json output.
  // A renewal's event is about the order the renewal made, not the purchase's.
  const cycleOrderId = id("cycle_order", "items.0.id");
  const state = {
    event,
    product_id: id("product"),
    checkout_id: id("checkout"),
    order_id: cycleOrderId ?? id("order", "items.0.id"),
    subscription_id: id("order", "items.0.subscription_id") ?? undefined,
    customer_id: id("customer") ?? id("order", "items.0.customer_id"),
  };
  ctx.out.result(
    Object.fromEntries(Object.entries(state).filter(([, v]) => v !== undefined && v !== null)),
    () =>
      `Triggered ${event}${
        cycleOrderId
          ? ` (subscription ${state.subscription_id}, cycle order ${cycleOrderId})`
          : state.order_id
            ? ` (order ${state.order_id})`
            : state.product_id
              ? ` (product ${state.product_id})`
              : ""
      }.`,
  );
}
