// The CLI defects a new seller hit, each reproduced against a real server through the real `till`
// executable: credentials sent to the wrong server, --org with two organizations, network and file
// errors shown as crashes, trigger's product pile-up, --json shapes and NO_COLOR on a terminal.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, signUp, type TestUser } from "../test/helpers/auth.ts";
import { cliEnv, loginAs, till } from "../test/helpers/cli.ts";
import { tempDir, tillBin } from "../test/helpers/process.ts";
import { freePort, startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let user: TestUser;
let first: { id: string; slug: string };
let second: { id: string; slug: string };
const env = cliEnv();

beforeAll(async () => {
  t = await startTestServer();
  user = await signUp(t.url);
  first = await createOrganization(t.url, user, "First Shop");
  second = await createOrganization(t.url, user, "Second Shop");
  const login = await loginAs(t.url, user, env, ["--org", first.slug]);
  expect(login.exitCode, login.stderr).toBe(0);
}, 60_000);
afterAll(() => t.stop());

async function json<T = Record<string, unknown>>(args: string[], e = env): Promise<T> {
  const result = await till([...args, "--json"], e);
  expect(result.exitCode, `${args.join(" ")}\n${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** A server that records every request's authorization header and answers 401. */
async function captureServer() {
  const seen: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "Unauthorized", detail: "capture" }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

// An SGR (colour/style) escape sequence.
const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`);

const noStack = (stderr: string) => {
  expect(stderr).not.toContain("Unexpected error");
  expect(stderr).not.toMatch(/\n\s+at /);
};

describe("CLI defects", { timeout: 120_000 }, () => {
  it("a saved credential only goes to the server that issued it: TILL_SERVER and --server elsewhere run without it", async () => {
    const capture = await captureServer();
    try {
      const viaEnv = await till(["orgs", "list"], { ...env, TILL_SERVER: capture.url });
      expect(viaEnv.exitCode).toBe(4);
      expect(viaEnv.stderr).toContain(`Not logged in to ${capture.url}`);
      expect(viaEnv.stderr).toContain(t.url);
      const viaFlag = await till(["orgs", "list", "--server", capture.url], env);
      expect(viaFlag.exitCode).toBe(4);
      const whoami = await till(["whoami"], { ...env, TILL_SERVER: capture.url });
      expect(capture.seen.filter(Boolean)).toEqual([]);
      expect(whoami.stdout).not.toContain(user.email);
      // The profile still works against its own server.
      expect((await json<{ items: unknown[] }>(["orgs", "list"])).items).toHaveLength(2);
    } finally {
      await capture.close();
    }
  });

  it("network and file errors are ordinary errors: exit 1, one line saying what and where, no stack", async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const login = await till(["login", "--server", closed], cliEnv());
    expect(login.exitCode).toBe(1);
    expect(login.stderr).toContain(`Could not reach till at ${closed} (ECONNREFUSED)`);
    noStack(login.stderr);
    const whoami = await till(
      ["whoami"],
      cliEnv(undefined, { TILL_TOKEN: "x", TILL_SERVER: closed }),
    );
    expect(whoami.exitCode).toBe(1);
    noStack(whoami.stderr);
    const missing = await till(
      ["events", "ingest", "--file", "/nonexistent/events.ndjson", "--org", first.id],
      env,
    );
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr.trim()).toBe(
      "Error: /nonexistent/events.ndjson: no such file or directory",
    );
    const listen = await till(
      ["listen", "--org", first.id],
      cliEnv(undefined, { TILL_TOKEN: "x", TILL_SERVER: closed }),
    );
    expect(listen.exitCode).toBe(1);
    expect(listen.stderr).toContain("Could not reach");
    noStack(listen.stderr);
  });

  it("--org takes an id or a slug on trigger and events ingest, defaults to the profile's and says which", async () => {
    const viaSlug = await till(["trigger", "order.paid", "--org", second.slug, "--json"], env);
    expect(viaSlug.exitCode, viaSlug.stderr).toBe(0);
    const paid = JSON.parse(viaSlug.stdout) as { product_id: string; order_id: string };
    const product = await json<{ organization_id: string }>(["products", "get", paid.product_id]);
    expect(product.organization_id).toBe(second.id);

    const byDefault = await till(["trigger", "product.created"], env);
    expect(byDefault.exitCode, byDefault.stderr).toBe(0);
    expect(byDefault.stderr).toContain(`Organization: ${first.slug} (${first.id}), the profile's`);

    const ingest = await till(
      ["events", "ingest", "--name", "api_call", "--external-customer", "u1", "--org", second.slug],
      env,
    );
    expect(ingest.exitCode, ingest.stderr).toBe(0);
    expect(ingest.stderr).toContain(`Organization: ${second.slug} (${second.id}), from --org`);
    const inSecond = await json<{ items: { name: string }[] }>([
      "events",
      "list",
      "--org",
      second.id,
      "--name",
      "api_call",
    ]);
    expect(inSecond.items).toHaveLength(1);
    const inFirst = await json<{ items: unknown[] }>(["events", "list", "--name", "api_call"]);
    expect(inFirst.items).toHaveLength(0);
    const unknown = await till(["trigger", "order.paid", "--org", "no-such-org"], env);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('No organization "no-such-org"');
  });

  it("trigger reuses one fixture product per organization, or the one its overrides describe", async () => {
    const a = await json<{ product_id: string }>(["trigger", "order.paid"]);
    const b = await json<{ product_id: string }>(["trigger", "order.paid"]);
    expect(b.product_id).toBe(a.product_id);
    const gold = ["--override", "product:name=Gold", "--override", "price:amount=2500"];
    const c = await json<{ product_id: string; order_id: string }>([
      "trigger",
      "order.paid",
      ...gold,
      "--add",
      "metadata.plan=gold",
    ]);
    expect(c.product_id).not.toBe(a.product_id);
    const product = await json<{ name: string; prices: { price_amount: number }[] }>([
      "products",
      "get",
      c.product_id,
    ]);
    expect(product).toMatchObject({ name: "Gold", prices: [{ price_amount: 2500 }] });
    const order = await json<{ total_amount: number; metadata: Record<string, unknown> }>([
      "orders",
      "get",
      c.order_id,
    ]);
    expect(order.total_amount).toBe(2500);
    const d = await json<{ product_id: string }>(["trigger", "order.paid", ...gold]);
    expect(d.product_id).toBe(c.product_id);
    const names = (
      await json<{ items: { name: string }[] }>(["products", "list", "--limit", "100"])
    ).items.map((p) => p.name);
    expect(names.filter((n) => n === "till trigger product")).toHaveLength(1);
    const list = await json<{ items: string[] }>(["trigger", "--list"]);
    expect(list.items).toContain("subscription.revoked");
  });

  it("trigger names each step by what its request answers: the confirm step's checkout as such", async () => {
    const paid = await till(["trigger", "order.paid"], env);
    expect(paid.exitCode, paid.stderr).toBe(0);
    const checkoutId = paid.stderr.match(/POST \/v1\/checkouts\/ → checkout (\S+)$/m)?.[1];
    expect(checkoutId, paid.stderr).toBeTruthy();
    expect(paid.stderr).toMatch(
      new RegExp(
        `^POST /v1/checkouts/client/\\S+/confirm → confirmed_checkout ${checkoutId}$`,
        "m",
      ),
    );
    expect(paid.stderr).not.toContain("→ payment");
    // A step that lists (the order the checkout made) names what it found, as the others do.
    expect(paid.stderr).toMatch(/^GET \/v1\/orders\/\S* → order [0-9a-f-]{36}$/m);
  });

  it("--json everywhere: open prints {url}, listen --print-secret prints {secret}, tokens list is the API's page", async () => {
    expect(await json(["open", "dashboard"])).toEqual({ url: `${t.url}/` });
    expect(await json(["open", "webhooks"])).toEqual({ url: `${t.url}/webhooks` });
    // The server's own API reference, which documents what it serves.
    expect(await json(["open", "docs"])).toEqual({ url: `${t.url}/docs` });
    // snake_case keys, as the API's fields.
    const paid = await json<{ checkout_id: string }>(["trigger", "order.paid"]);
    expect(Object.keys(paid).sort()).toEqual([
      "checkout_id",
      "customer_id",
      "event",
      "order_id",
      "product_id",
    ]);
    const checkout = await json<{ url: string }>(["open", "checkout", paid.checkout_id]);
    expect(checkout.url).toContain("/checkout/");
    const secret = await json<{ secret: string }>(["listen", "--print-secret"]);
    expect(secret.secret).toMatch(/^whsec_/);
    const created = await json<{ token: string }>([
      "tokens",
      "create",
      "--scope",
      "products:read",
      "--comment",
      "ci",
    ]);
    expect(created.token).toMatch(/^till_oat_/);
    const tokens = await json<{ items: { comment: string }[]; pagination: unknown }>([
      "tokens",
      "list",
    ]);
    expect(tokens.items.map((x) => x.comment)).toContain("ci");
    expect(tokens.pagination).toMatchObject({ total_count: 1, max_page: 1 });
  });

  it("NO_COLOR=1 on a terminal prints tables without colour codes", async () => {
    // `script` gives the CLI a real pseudo-terminal for stdout.
    const onTty = (extra: Record<string, string>) =>
      execa(
        "script",
        ["-qec", `${process.execPath} ${tillBin} products list --org ${first.id}`, "/dev/null"],
        {
          env: { ...env, ...extra, TERM: "xterm-256color" },
          extendEnv: false,
          reject: false,
          cwd: tempDir(),
        },
      );
    const plain = await onTty({ NO_COLOR: "1" });
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toContain("NAME");
    expect(plain.stdout).not.toMatch(SGR);
    const { NO_COLOR: _drop, ...coloured } = env;
    const color = await execa(
      "script",
      ["-qec", `${process.execPath} ${tillBin} products list --org ${first.id}`, "/dev/null"],
      {
        env: { ...coloured, TERM: "xterm-256color", FORCE_COLOR: "1" },
        extendEnv: false,
        reject: false,
        cwd: tempDir(),
      },
    );
    expect(color.stdout).toMatch(SGR);
  });
});
