// `till clock` against a real server with an organization token, as CI runs it: show, advance by a
// duration and to a time, refuse a bad duration, reset; --json parsed as JSON. Meter quantities
// count "30d" back from the organization's clock, where usage sent after an advance lands; a
// subscription's and an order's `get` show the period a renewal moves and the order it makes, and a
// trialing one when its first charge happens; an amount billed with usage on top says so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessToken, createSeller } from "../test/helpers/auth.ts";
import { billingSeller, meteredPlan, monthlyProduct, subscribe } from "../test/helpers/billing.ts";
import { cliEnv, till } from "../test/helpers/cli.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { addMonths, advanceBody } from "./commands/clock.ts";
import { clockAdvanceArgs } from "./commands/clock-flags.ts";

let t: TestServer;
let env: Record<string, string>;
let seller: Awaited<ReturnType<typeof createSeller>>;

beforeAll(async () => {
  t = await startTestServer();
  seller = await createSeller(t.url, ["subscriptions:write", "meters:write", "events:write"]);
  env = cliEnv(undefined, { TILL_TOKEN: seller.token, TILL_SERVER: t.url });
});
afterAll(() => t.stop());

async function json<T>(args: string[]): Promise<T> {
  const result = await till([...args, "--json"], env);
  expect(result.exitCode, `${args.join(" ")}\n${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

type Clock = { organization_id: string; now: string; offset_seconds: number };

describe("till clock", { timeout: 120_000 }, () => {
  it("parses durations and month ends as the server bills", () => {
    const parseAdvance = (text: string, now: Date) =>
      advanceBody(clockAdvanceArgs.parse({ when: text }).when, now);
    expect(parseAdvance("14d", new Date())).toEqual({ seconds: 14 * 86_400 });
    expect(parseAdvance("36h", new Date())).toEqual({ seconds: 36 * 3600 });
    expect(parseAdvance("1mo", new Date("2027-01-31T10:00:00Z"))).toEqual({
      to: "2027-02-28T10:00:00.000Z",
    });
    expect(addMonths(new Date("2028-01-31T00:00:00Z"), 1).toISOString()).toBe(
      "2028-02-29T00:00:00.000Z",
    );
  });

  it("shows, advances 14d, 1mo and to a time, refuses a bad duration, resets", async () => {
    const shown = await json<Clock>(["clock"]);
    const start = Date.parse(shown.now);
    const moved = await json<Clock>(["clock", "advance", "14d"]);
    expect(Date.parse(moved.now) - start).toBeGreaterThanOrEqual(14 * 86_400_000);
    const month = await json<Clock>(["clock", "advance", "1mo"]);
    expect(Date.parse(month.now)).toBeGreaterThan(Date.parse(moved.now) + 27 * 86_400_000);
    const target = new Date(Date.parse(month.now) + 86_400_000).toISOString();
    const to = await json<Clock>(["clock", "advance", target]);
    expect(to.now).toBe(target);

    const bad = await till(["clock", "advance", "soon"], env);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(
      '<when>: must be a duration (1mo, 1y, 2w, 14d, 36h, 90m, 30s) or an RFC 3339 time; got "soon"',
    );
    // A duration past the bound of one call is named as such.
    const far = await till(["clock", "advance", "7321d"], env);
    expect(far.exitCode).toBe(1);
    expect(far.stderr.trim()).toBe(
      "Error: RequestValidationError: seconds: The sandbox clock moves at most 7320 days (632448000 seconds) in one call.",
    );
    // Back to a time real time has passed too: a reset would not reach it, and the error says so.
    const back = await till(["clock", "advance", shown.now], env);
    expect(back.exitCode).toBe(1);
    // The clock runs on from where an advance left it, in real time.
    const at = (target: string) =>
      new RegExp(
        `^Error: The sandbox clock only moves forward: it is at (\\S+), after ${target}\\.$`,
        "m",
      );
    expect(back.stderr).toMatch(at(shown.now));
    expect(Date.parse(at(shown.now).exec(back.stderr)![1]!)).toBeGreaterThanOrEqual(
      Date.parse(to.now),
    );
    expect(back.stderr).toMatch(
      new RegExp(
        `\`till clock reset\` sets it back to real time \\(about \\S+\\), no earlier: ${shown.now} has passed in real time too\\.`,
      ),
    );
    // Back to a time still ahead of real time: reset, then advance there, as the error says.
    const between = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const behind = await till(["clock", "advance", between], env);
    expect(behind.exitCode).toBe(1);
    expect(behind.stderr).toMatch(at(between));
    expect(behind.stderr).toContain(
      `then \`till clock advance ${between}\` moves it there. What was billed while the clock ran ahead stays billed.`,
    );
    expect(behind.stderr).toMatch(
      /To go back, `till clock reset` sets it to real time \(about \S+\)/,
    );
    expect(Date.parse((await json<Clock>(["clock"])).now)).toBeGreaterThanOrEqual(
      Date.parse(to.now),
    );

    const plain = await till(["clock"], env);
    expect(plain.stdout).toContain("days ahead of real time");
    const reset = await json<Clock>(["clock", "reset"]);
    expect(reset.offset_seconds).toBe(0);
    expect(Math.abs(Date.parse(reset.now) - Date.now())).toBeLessThan(60_000);
    expect((await json<Clock>(["clock", "advance", between])).now).toBe(between);

    // At real time, no command moves it back.
    await json<Clock>(["clock", "reset"]);
    const past = await till(["clock", "advance", shown.now], env);
    expect(past.exitCode).toBe(1);
    expect(past.stderr).toContain("Error: The sandbox clock only moves forward: it is at ");
    expect(past.stderr).toContain(
      "It runs at real time now and never goes behind real time: `till clock reset` would not move it back either.",
    );
  });

  it("meters quantities count back from the sandbox clock, where usage after an advance is", async () => {
    const meter = await json<{ id: string }>([
      "meters",
      "create",
      "--name",
      "Calls",
      "--filter",
      "name eq api_call",
    ]);
    await json<Clock>(["clock", "advance", "40d"]);
    const ingest = await till(
      ["events", "ingest", "--name", "api_call", "--external-customer", "u1"],
      env,
    );
    expect(ingest.exitCode, ingest.stderr).toBe(0);
    const lately = await json<{ total: number }>([
      "meters",
      "quantities",
      meter.id,
      "--since",
      "1d",
    ]);
    expect(lately.total).toBe(1);

    // A token that may not read the clock counts from real time, and says so.
    const blind = await createAccessToken(t.url, seller.user, seller.organization.id, [
      "meters:read",
    ]);
    const real = await till(["meters", "quantities", meter.id, "--since", "1d", "--json"], {
      ...env,
      TILL_TOKEN: blind,
    });
    expect(real.exitCode, real.stderr).toBe(0);
    expect(JSON.parse(real.stdout).total).toBe(0);
    expect(real.stderr).toContain("Counting from real time");
  });

  it("subscriptions get shows the period; after an advance, the next one and its cycle order", async () => {
    const user = cliEnv(undefined, { TILL_TOKEN: seller.user.token, TILL_SERVER: t.url });
    const org = ["--org", seller.organization.id];
    const sub = await till(["trigger", "subscription.active", ...org, "--json"], user);
    expect(sub.exitCode, sub.stderr).toBe(0);
    const id = JSON.parse(sub.stdout).subscription_id as string;
    const before = await json<{ current_period_end: string }>(["subscriptions", "get", id]);
    const shown = await till(["subscriptions", "get", id], env);
    expect(shown.stdout).toMatch(/^period +\S+ → (\S+)$/m);
    expect(shown.stdout).toMatch(/^next +renews at period end$/m);
    await json<Clock>(["clock", "advance", "1mo"]);
    const renewed = await till(["subscriptions", "get", id], env);
    expect(renewed.stdout).toContain(`period      ${before.current_period_end} → `);
    const orders = await till(["api", "get", "/v1/orders/", "-d", `subscription_id=${id}`], user);
    const cycle = JSON.parse(orders.stdout).items[0] as { id: string };
    const order = await till(["orders", "get", cycle.id], user);
    expect(order.stdout).toMatch(/^reason +subscription_cycle$/m);
    expect(order.stdout).toMatch(/^subscription +[0-9a-f-]{36}$/m);
    // A cancel says when it takes effect, an uncancel that it renews, a revoke that it ended.
    const after = await json<{ current_period_end: string }>(["subscriptions", "get", id]);
    const cancel = await till(["subscriptions", "cancel", id], env);
    expect(cancel.stdout).toContain(
      `cancels at the end of its period, ${after.current_period_end}`,
    );
    const uncancel = await till(["subscriptions", "uncancel", id], env);
    expect(uncancel.stdout).toContain(
      `renews at the end of its period, ${after.current_period_end}`,
    );
    // Nothing to undo is said as such, not as Polar's bare "Bad request" / "Unavailable".
    const again = await till(["subscriptions", "uncancel", id], env);
    expect(again.exitCode).toBe(1);
    expect(again.stderr.trim()).toBe(
      `Error: Subscription ${id} is not set to cancel at the end of its period (or is paused): nothing to undo.`,
    );
    // An uncancel takes no reason: it would be sent nowhere.
    const help = await till(["subscriptions", "uncancel", "--help"], env);
    expect(help.stdout).not.toContain("--reason");
    expect((await till(["subscriptions", "revoke", id], env)).stdout).toContain(" ended ");
    const ended = await till(["subscriptions", "uncancel", id], env);
    expect(ended.exitCode).toBe(1);
    expect(ended.stderr.trim()).toBe(
      `Error: Subscription ${id} has ended: it can no longer be uncanceled.`,
    );
  });

  it("subscriptions get on a trialing subscription says the first charge is at the trial's end", async () => {
    const s = await billingSeller(t);
    const product = await monthlyProduct(s, "Trial plan", 1500, 7);
    const { subscriptionId: id } = await subscribe(s, product.id);
    const own = cliEnv(undefined, { TILL_TOKEN: s.token, TILL_SERVER: t.url });
    const sub = JSON.parse((await till(["subscriptions", "get", id, "--json"], own)).stdout) as {
      status: string;
      trial_end: string;
    };
    expect(sub.status).toBe("trialing");
    const shown = await till(["subscriptions", "get", id], own);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^status +trialing$/m);
    expect(shown.stdout).toMatch(
      new RegExp(`^next +first charge when the trial ends \\(${sub.trial_end}\\)$`, "m"),
    );
    // Uncanceled, it says the same rather than "renews".
    expect((await till(["subscriptions", "cancel", id], own)).exitCode).toBe(0);
    const uncancel = await till(["subscriptions", "uncancel", id], own);
    expect(uncancel.stdout).toContain(
      `Subscription ${id} makes its first charge when the trial ends, ${sub.trial_end}.`,
    );
  });

  it("subscriptions list and get say a metered plan's usage is billed on top of its amount", async () => {
    const s = await billingSeller(t);
    const { product } = await meteredPlan(s, {
      name: "usage",
      interval: "month",
      credit: 0,
      fixedAmount: 0,
    });
    const { subscriptionId: id } = await subscribe(s, product.id);
    const own = cliEnv(undefined, { TILL_TOKEN: s.token, TILL_SERVER: t.url });
    const shown = await till(["subscriptions", "get", id], own);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^amount +0\.00 USD\/month \+ usage$/m);
    const list = await till(["subscriptions", "list"], own);
    expect(list.stdout).toMatch(new RegExp(`^${id} .* 0\\.00 USD/month \\+ usage +active$`, "m"));
    const plain = await monthlyProduct(s, "Plain", 1500);
    const other = await subscribe(s, plain.id);
    const fixed = await till(["subscriptions", "get", other.subscriptionId], own);
    expect(fixed.stdout).toMatch(/^amount +15\.00 USD\/month$/m);
  });
});
