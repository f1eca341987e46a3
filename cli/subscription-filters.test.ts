// `till subscriptions list` filters against a real server: by status, product, customer and a
// pending cancellation, each repeatable where the API takes a list; a bad value stops before any
// request (the CLI is pointed at a port nobody listens on, so a request would fail otherwise).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingSeller, monthlyProduct, subscribe } from "../test/helpers/billing.ts";
import { cliEnv, till } from "../test/helpers/cli.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe("till subscriptions list filters", { timeout: 120_000 }, () => {
  it("filters by --status, --product, --customer and --canceling, each repeatable", async () => {
    const s = await billingSeller(t);
    const basic = await monthlyProduct(s, "Basic", 900);
    const pro = await monthlyProduct(s, "Pro", 1900);
    const kept = await subscribe(s, basic.id);
    const canceling = await subscribe(s, pro.id);
    const ended = await subscribe(s, basic.id);
    for (const [id, body] of [
      [canceling.subscriptionId, { cancel_at_period_end: true }],
      [ended.subscriptionId, { revoke: true }],
    ] as const) {
      const res = await s.call(`/v1/subscriptions/${id}`, { method: "PATCH", body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const env = cliEnv(undefined, { TILL_TOKEN: s.token, TILL_SERVER: t.url });
    const ids = async (...args: string[]) => {
      const r = await till(["subscriptions", "list", ...args, "--json"], env);
      expect(r.exitCode, `${args.join(" ")}\n${r.stderr}`).toBe(0);
      return (JSON.parse(r.stdout).items as { id: string }[]).map((x) => x.id).sort();
    };
    const sorted = (...list: string[]) => [...list].sort();

    expect(await ids("--status", "canceled")).toEqual([ended.subscriptionId]);
    expect(await ids("--status", "active")).toEqual(
      sorted(kept.subscriptionId, canceling.subscriptionId),
    );
    expect(await ids("--status", "active", "--status", "canceled")).toHaveLength(3);
    expect(await ids("--status", "past_due")).toEqual([]);
    expect(await ids("--product", pro.id)).toEqual([canceling.subscriptionId]);
    expect(await ids("--product", basic.id, "--status", "active")).toEqual([kept.subscriptionId]);
    expect(await ids("--product", basic.id, "--product", pro.id)).toHaveLength(3);
    expect(await ids("--customer", kept.customerId)).toEqual([kept.subscriptionId]);
    expect(await ids("--customer", kept.customerId, "--customer", ended.customerId)).toEqual(
      sorted(kept.subscriptionId, ended.subscriptionId),
    );
    expect(await ids("--canceling")).toEqual([canceling.subscriptionId]);
    expect(await ids("--active")).toEqual(sorted(kept.subscriptionId, canceling.subscriptionId));

    // The table names the filtered rows too.
    const table = await till(["subscriptions", "list", "--status", "canceled"], env);
    expect(table.stdout).toContain(ended.subscriptionId);
    expect(table.stdout).not.toContain(kept.subscriptionId);
    expect(table.stdout).toContain("1 subscription");
  });

  it("refuses a bad status or id before any request, naming the flag", async () => {
    const id = "5b0a3c55-3f7e-4f4e-9a59-6f4a7b8c9d01";
    const env = cliEnv(undefined, {
      TILL_TOKEN: "till_oat_unused",
      TILL_SERVER: "http://127.0.0.1:9",
    });
    const cases: [string[], string][] = [
      [
        ["--status", "cancelled"],
        "--status: must be one of incomplete, incomplete_expired, trialing, active, past_due, canceled, unpaid or paused",
      ],
      [["--status", "active", "--status", "live"], "--status: must be one of"],
      [["--product", "pro"], '--product: must be an id (a UUID), got "pro"'],
      [["--product", id, "--product", "pro"], '--product: must be an id (a UUID), got "pro"'],
      [
        ["--customer", id, "--customer", "cus_1"],
        '--customer: must be an id (a UUID), got "cus_1"',
      ],
    ];
    for (const [args, message] of cases) {
      const r = await till(["subscriptions", "list", ...args], env);
      expect(r.exitCode, `${args.join(" ")}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`Error: ${message}`);
      expect(r.stderr).not.toContain("Could not reach");
    }
    // With good values the same command does make its request (and finds no server there).
    const good = await till(["subscriptions", "list", "--status", "active", "--product", id], env);
    expect(good.exitCode).toBe(1);
    expect(good.stderr).toContain("Could not reach");
  });
});
