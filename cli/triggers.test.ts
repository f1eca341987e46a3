// Every event type till sends has a trigger, and each trigger fires the event it is named after:
// `till listen` sees each one arrive. Beside it, listeners with --events patterns see only the
// matching types, and --print-json carries the whole payload (the renewal order of
// subscription.cycled says billing_reason subscription_cycle). A renewal's trigger names the order
// the renewal made.
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_TYPES } from "../server/modules/webhooks/events.ts";
import { createSeller } from "../test/helpers/auth.ts";
import { cliEnv, till } from "../test/helpers/cli.ts";
import { tillBin } from "../test/helpers/process.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { waitFor } from "../test/helpers/webhook-receiver.ts";

// Seats are in Polar's contract but not built in till: nothing sends them.
const NOT_SENT = /^customer_seat\./;

interface Line {
  kind: string;
  type: string;
  payload?: { type: string; data: Record<string, unknown> };
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

function listen(args: string[], env: NodeJS.ProcessEnv) {
  const child: ResultPromise = execa(process.execPath, [tillBin, "listen", ...args, "--json"], {
    env,
    extendEnv: false,
    reject: false,
    stdin: "ignore",
  });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const lines = () =>
    out
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line)
      .filter((l) => l.kind === "event");
  return { child, lines, types: () => new Set(lines().map((l) => l.type)) };
}

describe("till trigger", { timeout: 300_000 }, () => {
  it("has a trigger for every event type till sends, and each fires its event", async () => {
    const seller = await createSeller(t.url, ["products:read"]);
    const org = seller.organization.id;
    const env = cliEnv(undefined, { TILL_TOKEN: seller.user.token, TILL_SERVER: t.url });
    const all = listen(["--org", org, "--print-json"], env);
    const subscriptions = listen(["--org", org, "--events", "subscription.*,order.paid"], env);
    const none = listen(["--org", org, "--events", "nothing.*"], env);
    const listeners = [all, subscriptions, none];
    try {
      // The streams are open once a first trigger's event shows up on both.
      await waitFor(
        async () => {
          await till(["trigger", "customer.created", "--org", org], env);
          return all.types().has("customer.created") && subscriptions.lines().length === 0;
        },
        30_000,
        "streams open",
      );
      const listed = JSON.parse((await till(["trigger", "--list", "--json"], env)).stdout)
        .items as string[];
      expect([...listed].sort()).toEqual(
        WEBHOOK_EVENT_TYPES.filter((type) => !NOT_SENT.test(type)).sort(),
      );
      for (const event of listed) {
        const r = await till(["trigger", event, "--org", org], env);
        expect(r.exitCode, `${event}\n${r.stderr}`).toBe(0);
        await waitFor(() => all.types().has(event), 30_000, `${event} on the stream`);
      }

      // --print-json: whole payloads; the clock's renewal made a subscription_cycle order.
      const reasons = all
        .lines()
        .filter((l) => l.type === "order.created")
        .map((l) => l.payload?.data.billing_reason);
      expect(reasons).toContain("subscription_cycle");
      expect(reasons).toContain("purchase");
      const subscriptionTypes = [...all.types()].filter(
        (type) => type.startsWith("subscription.") || type === "order.paid",
      );
      await waitFor(
        () => subscriptions.types().size === subscriptionTypes.length,
        20_000,
        "the filtered stream",
      );
      expect([...subscriptions.types()].sort()).toEqual(subscriptionTypes.sort());
      expect(subscriptions.lines().every((l) => l.payload === undefined)).toBe(true);
      expect(none.lines()).toEqual([]);
    } finally {
      for (const l of listeners) l.child.kill("SIGINT");
      await Promise.all(listeners.map((l) => l.child));
    }
  });

  it("a renewal's trigger names the order the renewal made, not the purchase's", async () => {
    const seller = await createSeller(t.url, [
      "products:write",
      "checkouts:write",
      "subscriptions:write",
      "orders:read",
    ]);
    const env = cliEnv(undefined, { TILL_TOKEN: seller.token, TILL_SERVER: t.url });
    const orderOf = async (id: string) => {
      const r = await till(["orders", "get", id, "--json"], env);
      expect(r.exitCode, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { billing_reason: string; status: string };
    };
    for (const [event, status] of [
      ["subscription.cycled", "paid"],
      ["subscription.past_due", "pending"],
    ] as const) {
      const r = await till(["trigger", event, "--json"], env);
      expect(r.exitCode, `${event}\n${r.stderr}`).toBe(0);
      const made = JSON.parse(r.stdout) as { order_id: string; subscription_id: string };
      expect(await orderOf(made.order_id), event).toMatchObject({
        billing_reason: "subscription_cycle",
        status,
      });
      const text = await till(["trigger", event], env);
      expect(text.exitCode, text.stderr).toBe(0);
      const named = new RegExp(
        `^Triggered ${event.replace(".", "\\.")} \\(subscription (\\S+), cycle order (\\S+)\\)\\.$`,
        "m",
      ).exec(text.stdout);
      expect(named, text.stdout).not.toBeNull();
      expect((await orderOf(named![2]!)).billing_reason).toBe("subscription_cycle");
    }
    // A purchase's trigger still names the purchase's order.
    const paid = await till(["trigger", "order.paid", "--json"], env);
    expect((await orderOf(JSON.parse(paid.stdout).order_id)).billing_reason).toBe("purchase");
  });
});
