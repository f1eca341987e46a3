// `till init webhook-handler` (the written handler runs and verifies a triggered event forwarded
// by `till listen`), and `till profiles list|use|remove` / `till config`.
import { symlinkSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrganization, signUp, type TestUser } from "../test/helpers/auth.ts";
import { cliEnv, loginAs, till } from "../test/helpers/cli.ts";
import { repoRoot, tempDir, tillBin } from "../test/helpers/process.ts";
import { freePort, startTestServer, type TestServer } from "../test/helpers/server.ts";
import { waitFor } from "../test/helpers/webhook-receiver.ts";

let t: TestServer;
let user: TestUser;
let org: { id: string; slug: string };

beforeAll(async () => {
  t = await startTestServer();
  user = await signUp(t.url);
  org = await createOrganization(t.url, user, "Init Shop");
});
afterAll(() => t.stop());

describe("till init and profiles", { timeout: 120_000 }, () => {
  it("init webhook-handler --lang ts writes a handler that runs and verifies a triggered event", async () => {
    const env = cliEnv(undefined, { TILL_TOKEN: user.token, TILL_SERVER: t.url });
    const dir = path.join(tempDir(), "hooks");
    const init = await till(
      ["init", "webhook-handler", "--lang", "ts", "--dir", dir, "--json"],
      env,
    );
    expect(init.exitCode, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout).files).toEqual(["server.ts", "package.json"]);
    const again = await till(["init", "webhook-handler", "--dir", dir], env);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("--force");
    const cobol = await till(["init", "webhook-handler", "--lang", "cobol"], env);
    expect(cobol.exitCode).toBe(2);
    expect(cobol.stderr).toContain("--lang: must be ts");
    // Its dependencies (express, standardwebhooks) as `npm install` would provide them.
    symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));

    const secret = JSON.parse(
      (await till(["listen", "--org", org.id, "--print-secret", "--json"], env)).stdout,
    ).secret as string;
    const port = await freePort();
    const handler = execa(process.execPath, ["server.ts"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", WEBHOOK_SECRET: secret, PORT: String(port) },
      extendEnv: false,
      reject: false,
    });
    let handlerOut = "";
    handler.stdout!.on("data", (d: Buffer) => (handlerOut += d.toString()));
    handler.stderr!.on("data", (d: Buffer) => (handlerOut += d.toString()));
    const listener = execa(
      process.execPath,
      [tillBin, "listen", "--org", org.id, "--forward-to", `http://127.0.0.1:${port}/webhooks`],
      { env, extendEnv: false, reject: false, stdin: "ignore" },
    );
    let listenErr = "";
    listener.stderr!.on("data", (d: Buffer) => (listenErr += d.toString()));
    try {
      await waitFor(() => handlerOut.includes("Listening on"), 20_000, `handler up\n${handlerOut}`);
      await waitFor(() => listenErr.includes("Ready"), 20_000, `listener up\n${listenErr}`);
      // A forged request is refused.
      const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: "POST",
        headers: { "webhook-id": "x", "webhook-timestamp": "1", "webhook-signature": "v1,AAAA" },
        body: "{}",
      });
      expect(forged.status).toBe(403);
      const paid = await till(["trigger", "order.paid", "--org", org.id, "--json"], env);
      expect(paid.exitCode, paid.stderr).toBe(0);
      const { order_id: orderId } = JSON.parse(paid.stdout) as { order_id: string };
      await waitFor(
        () => handlerOut.includes(`Received order.paid ${orderId}`),
        20_000,
        `order.paid verified by the handler\n${handlerOut}\n${listenErr}`,
      );
    } finally {
      listener.kill("SIGINT");
      handler.kill("SIGTERM");
      await Promise.all([listener, handler]);
    }
  });

  it("profiles list|use|remove and config", async () => {
    const env = cliEnv();
    expect((await loginAs(t.url, user, env)).exitCode).toBe(0);
    expect((await loginAs(t.url, user, env, ["--profile", "staging"])).exitCode).toBe(0);
    const list = JSON.parse((await till(["profiles", "list", "--json"], env)).stdout) as {
      items: { name: string; current: boolean; server: string; user: string }[];
    };
    expect(list.items.map((p) => [p.name, p.current])).toEqual([
      ["default", true],
      ["staging", false],
    ]);
    expect(list.items[0]).toMatchObject({ server: t.url, user: user.email });
    expect(JSON.stringify(list)).not.toContain('token":');

    const use = await till(["profiles", "use", "staging"], env);
    expect(use.exitCode, use.stderr).toBe(0);
    const config = JSON.parse((await till(["config", "--json"], env)).stdout);
    expect(config).toMatchObject({ profile: "staging", server: t.url, token_source: "profile" });
    // TILL_PROFILE still wins over the chosen profile.
    const pinned = JSON.parse(
      (await till(["config", "--json"], { ...env, TILL_PROFILE: "default" })).stdout,
    );
    expect(pinned.profile).toBe("default");
    expect((await till(["whoami", "--json"], env)).exitCode).toBe(0);

    // Logged out, it is listed with the server its next login goes to, until it is removed.
    expect((await till(["logout", "--profile", "staging"], env)).exitCode).toBe(0);
    const out = JSON.parse((await till(["profiles", "list", "--json"], env)).stdout);
    expect(out.items).toContainEqual(
      expect.objectContaining({ name: "staging", logged_in: false, server: t.url }),
    );
    expect((await till(["profiles", "remove", "staging"], env)).exitCode).toBe(0);
    const forgotten = JSON.parse(
      (await till(["config", "--json", "--profile", "staging"], env)).stdout,
    );
    expect(forgotten.server).toBe("http://localhost:8080");
    const after = JSON.parse((await till(["profiles", "list", "--json"], env)).stdout);
    expect(after.items.map((p: { name: string; current: boolean }) => [p.name, p.current])).toEqual(
      [["default", true]],
    );
    const unknown = await till(["profiles", "use", "nope"], env);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('No profile "nope"');
    const ci = JSON.parse(
      (await till(["config", "--json"], { ...env, TILL_TOKEN: "till_oat_x", TILL_SERVER: t.url }))
        .stdout,
    );
    expect(ci).toMatchObject({ token_source: "environment", environment: { TILL_TOKEN: "(set)" } });
  });
});
