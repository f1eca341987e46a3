// The CLI's login, whoami, orgs and tokens against a real server over HTTP, run as a child process
// without a TTY, the way CI runs it.
import { statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, signUp, type TestUser } from "../test/helpers/auth.ts";
import { cliEnv, loginAs, till } from "../test/helpers/cli.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";

let t: TestServer;
let user: TestUser;
let org: { id: string; slug: string };
const env = cliEnv();

beforeAll(async () => {
  t = await startTestServer();
  user = await signUp(t.url);
  org = await createOrganization(t.url, user, "Cli Shop");
});
afterAll(() => t.stop());

describe("till login / whoami / tokens", () => {
  it("logs in through the device flow without a TTY, saves a 0600 profile and picks the only organization", {
    timeout: 60_000,
  }, async () => {
    const result = await loginAs(t.url, user, env, ["--json"]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain("/device");
    const out = JSON.parse(result.stdout);
    expect(out).toMatchObject({
      server: t.url,
      user: { email: user.email },
      organization: { id: org.id },
    });
    const file = path.join(env.XDG_CONFIG_HOME!, "till", "credentials.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("whoami --json names the server, user, organization and token kind", async () => {
    const result = await till(["whoami", "--json"], env);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      server: t.url,
      token_kind: "user",
      token_source: "profile",
      user: { email: user.email },
      organization: { id: org.id },
    });
  });

  it("tokens create prints an organization token once; TILL_TOKEN then works for CI", async () => {
    const created = await till(
      ["tokens", "create", "--scope", "organizations:read", "--comment", "ci", "--json"],
      env,
    );
    expect(created.exitCode, created.stderr).toBe(0);
    const { token } = JSON.parse(created.stdout);
    expect(token).toMatch(/^till_oat_/);
    // Without --json it names the organization the token is for on stderr.
    const plainCreate = await till(["tokens", "create", "--scope", "products:read"], env);
    expect(plainCreate.stderr).toContain(`Organization: ${org.slug} (${org.id})`);
    expect(plainCreate.stdout).toMatch(/^till_oat_\S+\n?$/);
    const ci = await till(
      ["whoami", "--json"],
      cliEnv(undefined, { TILL_TOKEN: token, TILL_SERVER: t.url }),
    );
    expect(ci.exitCode, ci.stderr).toBe(0);
    expect(JSON.parse(ci.stdout)).toMatchObject({
      token_kind: "organization",
      token_source: "environment",
      organization: { id: org.id },
    });
    // A token made for one job, without organizations:read: whoami says the rest.
    const narrow = await till(
      ["tokens", "create", "--scope", "products:read", "--comment", "narrow", "--json"],
      env,
    );
    const plain = await till(
      ["whoami"],
      cliEnv(undefined, { TILL_TOKEN: JSON.parse(narrow.stdout).token, TILL_SERVER: t.url }),
    );
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toContain("organization token from environment");
    expect(plain.stdout).toContain("lacks organizations:read");
    // The token cannot tell when it expires: whoami does not claim "never".
    expect(plain.stdout).not.toContain("never");
    expect(plain.stdout).toContain("`till tokens list` shows it");
    // The live stream is a user's: listen says so at once instead of asking for a scope.
    const listen = await till(
      ["listen", "--print-secret"],
      cliEnv(undefined, { TILL_TOKEN: token, TILL_SERVER: t.url }),
    );
    expect(listen.exitCode).toBe(4);
    expect(listen.stderr).toContain("`till listen` needs a signed-in user");
    expect(listen.stderr).not.toContain("scope");
    // So is the request log: logs tail says so too, exit 4, rather than naming a scope to add.
    const tail = await till(
      ["logs", "tail"],
      cliEnv(undefined, { TILL_TOKEN: token, TILL_SERVER: t.url }),
    );
    expect(tail.exitCode).toBe(4);
    expect(tail.stderr).toContain("`till logs tail` needs a signed-in user");
    expect(tail.stderr).toContain("Run `till login` (and unset TILL_TOKEN).");
    expect(tail.stderr).not.toContain("scope");
  });

  it("orgs create switches to the new organization; orgs list marks it", async () => {
    const created = await till(["orgs", "create", "--name", "Second Shop", "--json"], env);
    expect(created.exitCode, created.stderr).toBe(0);
    const second = JSON.parse(created.stdout);
    const list = await till(["orgs", "list"], env);
    expect(list.stdout).toMatch(new RegExp(`^\\*\\s+${second.slug}`, "m"));
    // Without --json it says that later commands now act in the new organization.
    const third = await till(["orgs", "create", "--name", "Third Shop"], env);
    expect(third.stdout).toContain("Now using it: commands without --org act in it");
    const back = await till(["orgs", "switch", org.slug], env);
    expect(back.exitCode).toBe(0);

    // With two organizations a create needs organization_id: till api names the profile's, or
    // --org's, and says which on stderr.
    const price = ["-d", "prices.0.amount_type=fixed", "-d", "prices.0.price_amount=100"];
    const made = await till(["api", "post", "/v1/products/", "-d", "name=Here", ...price], env);
    expect(made.exitCode, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).organization_id).toBe(org.id);
    expect(made.stderr).toContain(org.slug);
    const there = await till(
      ["api", "post", "/v1/products/", "--org", second.slug, "-d", "name=There", ...price],
      env,
    );
    expect(there.exitCode, there.stderr).toBe(0);
    expect(JSON.parse(there.stdout).organization_id).toBe(second.id);
    // Lists and the clock say which organization they read too.
    const listed = await till(["products", "list"], env);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.stderr).toContain(`Organization: ${org.slug}`);
  });

  it("a rejected token exits 4 with Polar's error name; no login exits 4; a bad flag exits 2", async () => {
    const bad = await till(
      ["orgs", "list"],
      cliEnv(undefined, { TILL_TOKEN: "till_oat_nope", TILL_SERVER: t.url }),
    );
    expect(bad.exitCode).toBe(4);
    expect(bad.stderr).toContain("Unauthorized");
    expect(bad.stdout).toBe("");
    const none = await till(["orgs", "list", "--server", t.url], cliEnv());
    expect(none.exitCode).toBe(4);
    expect(none.stderr).toContain("Not logged in");
    expect((await till(["orgs", "list", "--bogus"], env)).exitCode).toBe(2);
    // A misspelt scope is named with its resource's real ones, before anything is sent.
    const scope = await till(["tokens", "create", "--scope", "products:wrte"], env);
    expect(scope.exitCode).toBe(2);
    expect(scope.stderr).toContain(
      '--scope: unknown scope "products:wrte"; products has products:read, products:write',
    );
  });

  it("login with TILL_TOKEN set stops at once (exit 2) instead of waiting for a code nobody approves", async () => {
    const ci = await till(
      ["login"],
      cliEnv(undefined, { TILL_TOKEN: "till_oat_anything", TILL_SERVER: t.url }),
    );
    expect(ci.exitCode).toBe(2);
    expect(ci.stderr.trim()).toBe(
      "Error: TILL_TOKEN is set, and commands use it rather than a login: nothing to log in to.\nUnset TILL_TOKEN to log in (`unset TILL_TOKEN`).",
    );
  });

  it("polling reads authorization_pending and keeps going until the code is approved", {
    timeout: 40_000,
  }, async () => {
    const { createApi } = await import("./lib/api.ts");
    const { pollForToken, requestDeviceCode } = await import("./services/login.ts");
    const { api } = await import("../test/helpers/auth.ts");
    const anonymous = createApi(t.url, null);
    const code = await requestDeviceCode(anonymous);
    let sleeps = 0;
    const token = await pollForToken(anonymous, code, {
      sleep: async (ms) => {
        // Real waits: the server answers slow_down to a client that polls faster than its interval.
        await new Promise((r) => setTimeout(r, ms));
        sleeps++;
        if (sleeps === 2) {
          await api(t.url, `/api/auth/device?user_code=${code.user_code}`, { token: user.token });
          await api(t.url, "/api/auth/device/approve", {
            token: user.token,
            body: { userCode: code.user_code },
          });
        }
      },
    });
    expect(sleeps).toBe(2);
    expect(token.length).toBeGreaterThan(20);
  });

  it("logout forgets the token but keeps the server for the next login", async () => {
    const result = await till(["logout", "--json"], env);
    expect(JSON.parse(result.stdout)).toEqual({
      loggedOut: true,
      profile: "default",
      server: t.url,
    });
    const whoami = await till(["whoami"], env);
    expect(whoami.exitCode).toBe(4);
    expect(whoami.stderr).toContain(`Not logged in to ${t.url}.`);
    // Logging in again without --server goes back to the same server.
    const again = await loginAs(t.url, user, env, ["--json"], false);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ server: t.url });
    expect((await till(["whoami"], env)).exitCode).toBe(0);
  });
});
