// Customer sessions: a seller opens one for a customer by id or external id, answered as Polar's
// CustomerSession with a hashed till_cst_ token that lasts an hour; bad input, unknown or foreign
// customers and a token without the scope are refused and write nothing.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import {
  ada,
  bob,
  clock,
  polar,
  session,
  sessionCount,
  t,
  token,
  withPortalShop,
} from "../../../test/helpers/customer-portal.ts";

withPortalShop();

describe("POST /v1/customer-sessions/", () => {
  it("opens a one-hour session by customer id or external id, answered as Polar's CustomerSession", async () => {
    const before = clock.now().getTime();
    const byId = await session({
      customer_id: ada.customerId,
      return_url: "https://shop.example/account",
    });
    expect(Object.keys(byId).sort()).toEqual([
      "created_at",
      "customer",
      "customer_id",
      "customer_portal_url",
      "expires_at",
      "id",
      "modified_at",
      "return_url",
      "token",
    ]);
    expect(byId).toMatchObject({
      customer_id: ada.customerId,
      return_url: "https://shop.example/account",
      customer: { id: ada.customerId, email: "ada@example.com", external_id: "user-ada" },
    });
    expect(byId.token).toMatch(/^till_cst_[A-Za-z0-9_-]{43}$/);
    expect(byId.customer_portal_url).toBe(`${t.url}/portal?customer_session_token=${byId.token}`);
    const ttl = new Date(byId.expires_at).getTime() - before;
    expect(ttl).toBeGreaterThanOrEqual(3_590_000);
    expect(ttl).toBeLessThanOrEqual(3_610_000);
    // Stored hashed: the token itself appears nowhere in the table.
    const [row] = await t.server.database.rows<{ token_hash: string }>(
      sql`select token_hash from customer_sessions where customer_id = ${ada.customerId} limit 1`,
    );
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);

    const byExternal = await polar.customerSessions.create({ externalCustomerId: "user-bob" });
    expect(byExternal.customerId).toBe(bob.customerId);
    expect(byExternal.returnUrl).toBeNull();
  });

  it("refuses bad input and unknown or foreign customers with 422, a token without the scope with 403, and writes nothing", async () => {
    const n = await sessionCount();
    const missing = await api(t.url, "/v1/customer-sessions/", {
      token,
      body: { return_url: "https://x.example" },
    });
    expect(missing.status).toBe(422);
    expect(
      (await api(t.url, "/v1/customer-sessions/", { token, body: { customer_id: "nope" } })).status,
    ).toBe(422);
    expect(
      (
        await api(t.url, "/v1/customer-sessions/", {
          token,
          body: { customer_id: ada.customerId, return_url: "not a url" },
        })
      ).status,
    ).toBe(422);
    const unknown = await api(t.url, "/v1/customer-sessions/", {
      token,
      body: { external_customer_id: "nobody" },
    });
    // As Polar's CustomerSessionService: a customer it cannot find is a 422 on the field naming it.
    expect(unknown).toMatchObject({
      status: 422,
      body: {
        detail: [
          {
            loc: ["body", "external_customer_id"],
            msg: "Customer does not exist.",
            input: "nobody",
          },
        ],
      },
    });
    const other = await createSeller(t.url, ["customer_sessions:write"]);
    const foreign = await api(t.url, "/v1/customer-sessions/", {
      token: other.token,
      body: { customer_id: ada.customerId },
    });
    expect(foreign).toMatchObject({
      status: 422,
      body: { detail: [{ loc: ["body", "customer_id"], msg: "Customer does not exist." }] },
    });
    const readOnly = await createSeller(t.url, ["customers:read"]);
    expect(
      (
        await api(t.url, "/v1/customer-sessions/", {
          token: readOnly.token,
          body: { customer_id: ada.customerId },
        })
      ).status,
    ).toBe(403);
    expect(await sessionCount()).toBe(n);
  });
});
