// Third-party failures never fail the purchase: a Discord outage, a rate limit, an unknown
// Discord user, a forbidden repository and an unlinked account are recorded on the grant (and
// retried where that helps) while the order stays paid.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { buy, eventually, linkAccounts } from "../../../test/helpers/grants.ts";
import {
  discordBenefit,
  GUILD,
  grantsOf,
  organizationId,
  polar,
  ROLE,
  t,
  third,
  withGrantsShop,
} from "../../../test/helpers/grants-flow.ts";

withGrantsShop();

describe("third-party failures never fail the purchase", () => {
  async function productWith(benefitId: string, name: string) {
    const product = await polar.products.create({
      name,
      prices: [{ amountType: "fixed", priceAmount: 900, priceCurrency: "usd" }],
    });
    await polar.products.updateBenefits({
      id: product.id,
      productBenefitsUpdate: { benefits: [benefitId] },
    });
    return product;
  }

  it("a Discord outage: the order is paid, the grant records the error, and a retry grants it once Discord is back", async () => {
    const user = "800000000000000002";
    third.discordUsers.add(user);
    const email = "outage@example.com";
    await linkAccounts(t, email, { discord: user });
    const product = await productWith((await discordBenefit("Discord (outage)")).id, "Outage");
    third.down = true;
    try {
      const order = await buy(polar, organizationId, product.id, email);
      expect(order.status).toBe("paid");
      const failed = await eventually(
        async () => (await grantsOf(order.customerId)).find((g) => g.error),
        15_000,
        "a recorded error",
      );
      expect(failed.isGranted).toBe(false);
      expect(failed.error).toMatchObject({ type: "discord_error" });
      expect(failed.error!.message).toContain("503");
    } finally {
      third.down = false;
    }
    const customer = (await polar.customers.list({ email })).result.items[0]!;
    const granted = await eventually(
      async () => (await grantsOf(customer.id)).find((g) => g.isGranted),
      20_000,
      "the retried grant",
    );
    expect(granted.error ?? null).toBeNull();
    expect([...third.guilds.get(GUILD)!.get(user)!]).toEqual([ROLE]);
  });

  it("a 429 with Retry-After is waited out; an unknown Discord user and a forbidden repository are recorded on the grant", async () => {
    const user = "800000000000000003";
    third.discordUsers.add(user);
    await linkAccounts(t, "limited@example.com", { discord: user, github: "5003" });
    third.githubUsers.set("5003", "octo-limited");
    third.failNext({
      status: 429,
      headers: { "retry-after": "1" },
      body: { message: "You are being rate limited.", retry_after: 1, global: false },
      match: `PUT /discord/guilds/${GUILD}/members/${user}`,
    });
    const limited = await buy(
      polar,
      organizationId,
      (await productWith((await discordBenefit("Discord (429)")).id, "Limited")).id,
      "limited@example.com",
    );
    const ok = await eventually(
      async () => (await grantsOf(limited.customerId)).find((g) => g.isGranted),
      20_000,
      "grant after the rate limit",
    );
    expect(ok.error ?? null).toBeNull();
    expect(
      third.requests.filter((r) => r === `PUT /discord/guilds/${GUILD}/members/${user}`).length,
    ).toBe(2);

    // Discord answers 404 Unknown User for an account it does not know.
    await linkAccounts(t, "ghost@example.com", { discord: "800000000000000404" });
    const ghost = await buy(
      polar,
      organizationId,
      (await productWith((await discordBenefit("Discord (404)")).id, "Ghost")).id,
      "ghost@example.com",
    );
    const notFound = await eventually(
      async () => (await grantsOf(ghost.customerId)).find((g) => g.error),
      15_000,
      "404 error",
    );
    expect(notFound.error).toMatchObject({ type: "discord_not_found" });
    expect(notFound.error!.message).toContain("Unknown User");

    // GitHub answers 403 when the repository is not accessible to the integration.
    third.repos.set("acme/locked", { collaborators: new Map(), invitations: [], forbidden: true });
    const repoBenefit = await polar.benefits.create({
      type: "github_repository",
      description: "Locked repo",
      properties: { repositoryOwner: "acme", repositoryName: "locked", permission: "push" },
    });
    const locked = await buy(
      polar,
      organizationId,
      (await productWith(repoBenefit.id, "Locked")).id,
      "limited@example.com",
    );
    const forbidden = await eventually(
      async () =>
        (await grantsOf(locked.customerId)).find((g) => g.benefitId === repoBenefit.id && g.error),
      15_000,
      "403 error",
    );
    expect(forbidden.error).toMatchObject({ type: "github_forbidden" });
    expect(forbidden.isGranted).toBe(false);

    // A customer with no linked account: the grant says what is missing.
    const nobody = await buy(
      polar,
      organizationId,
      (await productWith((await discordBenefit("Discord (unlinked)")).id, "Unlinked")).id,
      "unlinked@example.com",
    );
    const unlinked = await eventually(
      async () => (await grantsOf(nobody.customerId)).find((g) => g.error),
      15_000,
      "unlinked error",
    );
    expect(unlinked.error).toMatchObject({ type: "discord_account_not_linked" });
  });

  it("an error of our own is recorded as a safe message, not the exception's text", async () => {
    // A database error whose text carries what must not reach the seller (SQL, parameters).
    await t.server.database.rows(
      sql.raw(`create function refuse_key() returns trigger language plpgsql as $$
        begin raise exception 'insert into license_keys values ($1) -- params: secret-param'; end $$`),
    );
    await t.server.database.rows(
      sql.raw(`create trigger refuse_key before insert on license_keys
        for each row execute function refuse_key()`),
    );
    try {
      const benefit = await polar.benefits.create({
        type: "license_keys",
        description: "Key (failing)",
        properties: {},
      });
      const order = await buy(
        polar,
        organizationId,
        (await productWith(benefit.id, "Keyed")).id,
        "keyed@example.com",
      );
      expect(order.status).toBe("paid");
      const failed = await eventually(
        async () => (await grantsOf(order.customerId)).find((g) => g.error),
        15_000,
        "a recorded error",
      );
      expect(failed.error).toMatchObject({ type: "internal_error" });
      expect(failed.error!.message).toBe(
        "The benefit could not be granted because of an error on our side; it is retried " +
          `automatically. If it keeps failing, contact support with the grant id ${failed.id}.`,
      );
    } finally {
      await t.server.database.rows(sql.raw("drop trigger refuse_key on license_keys"));
      await t.server.database.rows(sql.raw("drop function refuse_key()"));
    }
  });
});
