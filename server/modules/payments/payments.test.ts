import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { api } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { createSandboxProcessor } from "./sandbox-processor.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

const card = (number: string, extra: Record<string, unknown> = {}) => ({
  card: { number, exp_month: 12, exp_year: 2099, cvc: "123", ...extra },
});

describe("sandbox payments", () => {
  it.each([
    ["4242 4242 4242 4242", "succeeded", null],
    ["4000 0000 0000 0002", "failed", "card_declined"],
    ["4000000000009995", "failed", "insufficient_funds"],
  ])("card %s → %s %s", async (number, status, code) => {
    const res = await api(t.url, "/v1/sandbox/confirmation-tokens", { body: card(number) });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^sandbox_ctok_/);
    expect(res.body.card.last4).toBe(number.replace(/\s/g, "").slice(-4));
    const processor = createSandboxProcessor({ db: t.server.database.db });
    const result = await processor.charge({
      amount: 1500,
      currency: "usd",
      confirmationTokenId: res.body.id,
      idempotencyKey: `k-${number}`,
      description: "test",
    });
    expect(result.status).toBe(status);
    if (result.status === "failed") expect(result.code).toBe(code);
  });

  it("names every test card when given another number", async () => {
    const res = await api(t.url, "/v1/sandbox/confirmation-tokens", {
      body: card("4111 1111 1111 1111"),
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "card", "number"]);
    expect(res.body.detail[0].msg).toBe(
      "Use a sandbox test card: 4242 4242 4242 4242 (success), 4000 0000 0000 0002 (declined), " +
        "4000 0000 0000 9995 (insufficient funds), 5555 5555 5555 4444 (success), " +
        "4000 0000 0000 0341 (paid now, renewals declined).",
    );
  });

  it("stores brand and last four only, never the number or CVC", async () => {
    const res = await api(t.url, "/v1/sandbox/confirmation-tokens", {
      body: card("4242424242424242", { cvc: "987" }),
    });
    const [row] = await t.server.database.rows<Record<string, unknown>>(
      sql`select * from sandbox_confirmation_tokens where id = ${res.body.id}`,
    );
    expect(Object.keys(row!).sort()).toEqual([
      "brand",
      "created_at",
      "exp_month",
      "exp_year",
      "id",
      "last4",
      "outcome",
      "used_at",
    ]);
    // Timestamps are left out of the search: their milliseconds can read "987".
    const { created_at: _created, used_at: _used, ...stored } = row!;
    expect(JSON.stringify(stored)).not.toContain("4242424242424242");
    expect(JSON.stringify(stored)).not.toContain("987");
    expect(row).toMatchObject({ brand: "visa", last4: "4242", outcome: "success" });
  });

  it("fixed tokens decide the outcome without a card; an unknown token fails without charging", async () => {
    const processor = createSandboxProcessor({ db: t.server.database.db });
    const base = { amount: 100, currency: "usd", description: "x" };
    expect(
      (
        await processor.charge({
          ...base,
          confirmationTokenId: "sandbox_token_success",
          idempotencyKey: "a",
        })
      ).status,
    ).toBe("succeeded");
    expect(
      await processor.charge({
        ...base,
        confirmationTokenId: "sandbox_token_declined",
        idempotencyKey: "b",
      }),
    ).toMatchObject({
      status: "failed",
      code: "card_declined",
      message: "Your card was declined.",
    });
    expect(
      await processor.charge({
        ...base,
        confirmationTokenId: "sandbox_token_insufficient_funds",
        idempotencyKey: "c",
      }),
    ).toMatchObject({ code: "insufficient_funds" });
    expect(
      await processor.charge({
        ...base,
        confirmationTokenId: "sandbox_ctok_unknown",
        idempotencyKey: "d",
      }),
    ).toMatchObject({ status: "failed", code: "invalid_token" });
  });

  it("the same idempotency key maps to the same payment", async () => {
    const processor = createSandboxProcessor({ db: t.server.database.db });
    const req = {
      amount: 100,
      currency: "usd",
      description: "x",
      confirmationTokenId: "sandbox_token_success",
      idempotencyKey: "same",
    };
    const a = await processor.charge(req);
    const b = await processor.charge(req);
    expect(a).toEqual(b);
  });

  it("rejects non-test cards, past expiry and bad CVCs with 422 on the field, storing nothing", async () => {
    const before = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from sandbox_confirmation_tokens`,
    );
    const real = await api(t.url, "/v1/sandbox/confirmation-tokens", {
      body: card("4111 1111 1111 1111"),
    });
    expect(real.status).toBe(422);
    expect(real.body.detail[0].loc).toEqual(["body", "card", "number"]);
    const past = await api(t.url, "/v1/sandbox/confirmation-tokens", {
      body: card("4242424242424242", { exp_year: 2020 }),
    });
    expect(past.status).toBe(422);
    expect(past.body.detail[0].msg).toContain("expiration date is in the past");
    const cvc = await api(t.url, "/v1/sandbox/confirmation-tokens", {
      body: card("4242424242424242", { cvc: "12" }),
    });
    expect(cvc.status).toBe(422);
    expect(cvc.body.detail[0].loc).toEqual(["body", "card", "cvc"]);
    const after = await t.server.database.rows<{ n: number }>(
      sql`select count(*)::int as n from sandbox_confirmation_tokens`,
    );
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});
