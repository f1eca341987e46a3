// What the CLI says to a seller's mistakes, through the real `till` executable: --server or
// TILL_SERVER naming some other HTTP server (the seller's own app, a dev server answering every path
// with its page) is one line naming what answered, never a stack; and `whoami` with a TILL_TOKEN
// beside a logged-in profile does not show the profile's session expiry as the token's; a server
// given without its scheme (`localhost:8080`) is a usage error naming the flag or variable; a seller
// with no organization yet is told to create one; an amount typed in dollars ("5.00") is refused
// rather than read as 5 cents.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  createAccessToken,
  createOrganization,
  createSeller,
  signUp,
} from "../test/helpers/auth.ts";
import { cliEnv, loginAs, till } from "../test/helpers/cli.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

/** An HTTP server that is not till: every request gets an HTML page with this status. */
async function htmlServer(status: number) {
  const server = http.createServer((_req, res) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html>\n<html>\n  <body>\n    <h1>My shop</h1>\n  </body>\n</html>\n");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const oneLine = (stderr: string) => {
  expect(stderr).not.toContain("Unexpected error");
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr).not.toContain("<");
};

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
}, 60_000);
afterAll(() => t.stop());

describe("the CLI and a seller's mistakes", { timeout: 120_000 }, () => {
  it("a server that answers HTML instead of till's JSON is named in one line, exit 1", async () => {
    for (const status of [200, 404]) {
      const other = await htmlServer(status);
      try {
        const expected = `${other.url} answered text/html, not till's JSON ("My shop"); is it the till server?`;
        const login = await till(["login", "--server", other.url], cliEnv());
        expect(login.exitCode, login.stderr).toBe(1);
        expect(login.stderr).toContain(`Error: HTTP ${status}: ${expected}`);
        oneLine(login.stderr);
        const ci = cliEnv(undefined, { TILL_TOKEN: "till_oat_x", TILL_SERVER: other.url });
        for (const args of [["clock"], ["clock", "advance", "1d"], ["products", "list"]]) {
          const r = await till(args, ci);
          expect(r.exitCode, `${args.join(" ")}\n${r.stderr}`).toBe(1);
          expect(r.stderr).toContain(expected);
          oneLine(r.stderr);
        }
      } finally {
        await other.close();
      }
    }
  });

  it("whoami with TILL_TOKEN beside a logged-in profile shows no expiry of the profile's", async () => {
    const user = await signUp(t.url);
    const org = await createOrganization(t.url, user, "Whoami Shop");
    const env = cliEnv();
    const login = await loginAs(t.url, user, env);
    expect(login.exitCode, login.stderr).toBe(0);
    const profile = await till(["whoami", "--json"], env);
    expect(JSON.parse(profile.stdout).expires_at).toMatch(/^\d{4}-/);

    const token = await createAccessToken(t.url, user, org.id, ["products:read"]);
    const ci = { ...env, TILL_TOKEN: token };
    const json = await till(["whoami", "--json"], ci);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      token_source: "environment",
      token_kind: "organization",
      expires_at: null,
    });
    const text = await till(["whoami"], ci);
    expect(text.stdout).toMatch(/^expires +- \(an organization token does not tell/m);
  });

  it("a server without http:// is a usage error naming --server or TILL_SERVER", async () => {
    const bare = t.url.replace(/^http:\/\//, "");
    const login = await till(["login", "--server", bare], cliEnv());
    expect(login.exitCode).toBe(2);
    expect(login.stderr.trim()).toBe(
      `Error: --server: must be an http(s) URL, e.g. http://localhost:8080; got "${bare}"`,
    );
    const ci = await till(
      ["products", "list"],
      cliEnv(undefined, { TILL_TOKEN: "till_oat_x", TILL_SERVER: bare }),
    );
    expect(ci.exitCode).toBe(1);
    expect(ci.stderr).toContain(
      `TILL_SERVER: must be an http(s) URL, e.g. http://localhost:8080 (got "${bare}")`,
    );
    oneLine(login.stderr);
    oneLine(ci.stderr);
  });

  it("an amount typed in dollars is a usage error naming the flag, and nothing is sent", async () => {
    const seller = await createSeller(t.url, ["discounts:write", "refunds:write"]);
    const env = cliEnv(undefined, { TILL_TOKEN: seller.token, TILL_SERVER: t.url });
    const order = "00000000-0000-4000-8000-000000000000";
    for (const args of [
      ["discounts", "create", "--name", "Five off", "--amount", "5.00"],
      ["discounts", "create", "--name", "Five off", "--amount", "1e3"],
      ["refunds", "create", "--order", order, "--amount", "5.00"],
    ]) {
      const result = await till(args, env);
      expect(result.exitCode, `${args.join(" ")}\n${result.stderr}`).toBe(2);
      expect(result.stderr.trim()).toBe(
        "Error: --amount: is in minor units (cents) and must be a whole number, e.g. 500 for 5.00",
      );
    }
    const discounts = await api(t.url, "/v1/discounts/", { token: seller.token });
    expect(discounts.body.items).toEqual([]);
    const cents = await till(["discounts", "create", "--name", "Five off", "--amount", "500"], env);
    expect(cents.exitCode, cents.stderr).toBe(0);
    expect(cents.stdout).toContain("5.00 USD");
  });

  it("a command that acts in an organization, for a user who has none, says to create one", async () => {
    const user = await signUp(t.url);
    const env = cliEnv();
    const login = await loginAs(t.url, user, env);
    expect(login.exitCode, login.stderr).toBe(0);
    for (const args of [
      ["products", "create", "--name", "Pro", "--price", "1500", "--recurring", "month"],
      ["listen", "--print-secret"],
      ["trigger", "order.paid"],
    ]) {
      const result = await till(args, env);
      expect(result.exitCode, args.join(" ")).toBe(2);
      expect(result.stderr.trim()).toBe(
        "Error: You have no organization yet: create one with `till orgs create --name <name>`.",
      );
    }
    const org = await till(["orgs", "create", "--name", "First Shop"], env);
    expect(org.exitCode, org.stderr).toBe(0);
    const product = await till(["products", "create", "--name", "Pro", "--price", "1500"], env);
    expect(product.exitCode, product.stderr).toBe(0);
  });
});
