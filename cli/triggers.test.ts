// Every trigger fires the event it is named after: `till listen --json` sees each one arrive.
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSeller } from "../test/helpers/auth.ts";
import { cliEnv, till } from "../test/helpers/cli.ts";
import { tillBin } from "../test/helpers/process.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { waitFor } from "../test/helpers/webhook-receiver.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe("till trigger", { timeout: 120_000 }, () => {
  it("each listed event is seen on the live stream after its trigger", async () => {
    const seller = await createSeller(t.url, ["products:read"]);
    const org = seller.organization.id;
    const env = cliEnv(undefined, { TILL_TOKEN: seller.user.token, TILL_SERVER: t.url });
    const listener = execa(process.execPath, [tillBin, "listen", "--org", org, "--json"], {
      env,
      extendEnv: false,
      reject: false,
      stdin: "ignore",
    });
    let out = "";
    listener.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    const seen = () =>
      new Set(
        out
          .split("\n")
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { type?: string }).type),
      );
    try {
      // The stream is open once a first trigger's event shows up.
      await waitFor(
        async () => {
          await till(["trigger", "customer.created", "--org", org], env);
          return seen().has("customer.created");
        },
        30_000,
        "stream open",
      );
      const listed = JSON.parse((await till(["trigger", "--list", "--json"], env)).stdout)
        .items as string[];
      const events = [
        "customer.updated",
        "customer.deleted",
        "benefit.created",
        "benefit.updated",
        "benefit_grant.created",
        "refund.created",
        "order.refunded",
        "order.updated",
        "organization.updated",
        "subscription.cycled",
        "subscription.revoked",
        "subscription.past_due",
      ];
      for (const event of events) {
        expect(listed).toContain(event);
        const r = await till(["trigger", event, "--org", org], env);
        expect(r.exitCode, `${event}\n${r.stderr}`).toBe(0);
        await waitFor(() => seen().has(event), 20_000, `${event} on the stream`);
      }
    } finally {
      listener.kill("SIGINT");
      await listener;
    }
  });
});
