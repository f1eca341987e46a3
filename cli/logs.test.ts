// `till logs tail`: the organization's API requests, live, from GET /v1/cli/logs/{id}, filtered.
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createOrganization, createSeller } from "../test/helpers/auth.ts";
import { cliEnv } from "../test/helpers/cli.ts";
import { startSibling } from "../test/helpers/cluster.ts";
import { usingPostgres } from "../test/helpers/db.ts";
import { tillBin } from "../test/helpers/process.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { waitFor } from "../test/helpers/webhook-receiver.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

function tail(env: Record<string, string>, args: string[]) {
  const child = execa(process.execPath, [tillBin, "logs", "tail", ...args], {
    env,
    extendEnv: false,
    reject: false,
    stdin: "ignore",
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  return { child, out: () => out, err: () => err };
}

describe("till logs tail", { timeout: 60_000 }, () => {
  it("shows the organization's requests as they finish (method, path, status, duration, request id, token), filtered", async () => {
    const seller = await createSeller(t.url, ["products:read", "products:write"]);
    const org = seller.organization.id;
    const other = await createOrganization(t.url, seller.user, "Other");
    const env = cliEnv(undefined, { TILL_TOKEN: seller.user.token, TILL_SERVER: t.url });
    const all = tail(env, ["--org", org, "--json"]);
    const errors = tail(env, ["--org", org, "--status", "4xx", "--method", "GET"]);
    try {
      await waitFor(() => errors.err().includes("Tailing"), 20_000, `tail up\n${errors.err()}`);
      // --json prints no note; give its stream the same moment to open.
      await new Promise((r) => setTimeout(r, 1000));
      const created = await api(t.url, "/v1/products/", {
        token: seller.token,
        body: {
          name: "Logged",
          prices: [{ amount_type: "fixed", price_amount: 100, price_currency: "usd" }],
        },
      });
      expect(created.status).toBe(201);
      const missing = await api(t.url, "/v1/products/00000000-0000-4000-8000-000000000000", {
        token: seller.user.token,
      });
      expect(missing.status).toBe(404);
      // Another organization's request is not shown.
      await api(t.url, `/v1/products/?organization_id=${other.id}`, { token: seller.user.token });
      await waitFor(() => all.out().split("\n").filter(Boolean).length >= 2, 10_000, "two lines");
      await new Promise((r) => setTimeout(r, 500));
      const lines = all
        .out()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({
        method: "POST",
        path: "/v1/products/",
        status: 201,
        token: { kind: "organization" },
      });
      expect(lines[0].request_id).toBe(created.headers.get("x-request-id"));
      expect(typeof lines[0].duration_ms).toBe("number");
      expect(lines[1]).toMatchObject({ method: "GET", status: 404, token: { kind: "user" } });
      await waitFor(() => errors.out().includes("404"), 5_000, "the 404 in the filtered tail");
      // The status column, not anywhere: a request id is random hex and may hold "201".
      expect(errors.out()).not.toMatch(/^\S+\s+201\s/m);
      expect(errors.out()).not.toContain("POST");
      expect(errors.out()).toContain("GET    /v1/products/00000000-0000-4000-8000-000000000000");
    } finally {
      all.child.kill("SIGINT");
      errors.child.kill("SIGINT");
      await Promise.all([all.child, errors.child]);
    }
  });

  it("refuses an organization the caller cannot see, and a bad --status", async () => {
    const seller = await createSeller(t.url, ["products:read"]);
    const env = cliEnv(undefined, { TILL_TOKEN: seller.user.token, TILL_SERVER: t.url });
    const { child } = tail(env, ["--org", "00000000-0000-4000-8000-000000000000"]);
    const result = await child;
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("Organization not found");
    const bad = await tail(env, ["--org", seller.organization.id, "--status", "teapot"]).child;
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--status: takes codes like 404, 4xx or 5xx; got "teapot"');
  });

  // Two instances on one PostgreSQL database: a tail on one sees the other's requests, once each.
  it.runIf(usingPostgres())(
    "sees the requests every instance on the database answers, each once",
    async () => {
      const sibling = await startSibling(t);
      const seller = await createSeller(t.url, ["products:read"]);
      const env = cliEnv(undefined, { TILL_TOKEN: seller.user.token, TILL_SERVER: t.url });
      const all = tail(env, ["--org", seller.organization.id, "--json"]);
      try {
        const lines = () =>
          all
            .out()
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { request_id: string; path: string });
        // The sibling learns of the tail from its announcement; until then it sends nothing.
        const probes = new Set<string | null>();
        await waitFor(
          async () => {
            const probe = await api(sibling.url, "/v1/products/?limit=1", { token: seller.token });
            probes.add(probe.headers.get("x-request-id"));
            return lines().some((l) => probes.has(l.request_id));
          },
          20_000,
          "a request on the other instance in the tail",
        );
        const here = await api(t.url, "/v1/products/?limit=2", { token: seller.token });
        const there = await api(sibling.url, "/v1/products/?limit=3", { token: seller.token });
        const ids = [here, there].map((r) => r.headers.get("x-request-id"));
        await waitFor(
          () => ids.every((id) => lines().some((l) => l.request_id === id)),
          10_000,
          "both instances' requests",
        );
        await new Promise((r) => setTimeout(r, 500));
        for (const id of ids) expect(lines().filter((l) => l.request_id === id)).toHaveLength(1);
      } finally {
        all.child.kill("SIGINT");
        await all.child;
        await sibling.stop();
      }
    },
  );
});
