// The README's first-sale path, line by line as the README writes it, from an empty data dir:
// `till dev` on a fresh embedded database, a user signed up, then every command of the README's
// block — login by device code (approved as the /device page does), an organization, a product, the
// webhook handler from `till init`, `till listen` forwarding to it, a trigger and a checkout paid —
// and the handler verifies the events. Two substitutions only: a free port for 3000 (the machine may
// use 3000), and a link to this repository's node_modules for `npm install` (no network in tests).
import { readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, signUp, type TestUser } from "../test/helpers/auth.ts";
import { cliEnv } from "../test/helpers/cli.ts";
import {
  repoRoot,
  spawnTillServer,
  tempDir,
  tillBin,
  type SpawnedServer,
} from "../test/helpers/process.ts";
import { freePort } from "../test/helpers/server.ts";
import { waitFor } from "../test/helpers/webhook-receiver.ts";
import { US_ADDRESS } from "../test/helpers/addresses.ts";

let server: SpawnedServer;
let user: TestUser;
const cwd = tempDir("till-first-sale-");
const children: ResultPromise[] = [];

beforeAll(async () => {
  const port = await freePort();
  server = await spawnTillServer(
    "dev",
    {
      PORT: String(port),
      BASE_URL: `http://localhost:${port}`,
      TILL_DATA_DIR: path.join(cwd, ".till"),
    },
    cwd,
  );
  user = await signUp(server.url);
}, 120_000);
afterAll(async () => {
  // npm start runs the handler in a child of its own: end the whole process group.
  for (const c of children) {
    if (c.pid) {
      try {
        process.kill(-c.pid, "SIGTERM");
      } catch {
        c.kill("SIGTERM");
      }
    }
  }
  await Promise.all(children);
  server?.child.kill("SIGTERM");
  await server?.child;
});

/** The README's first-sale block: its command lines, comments dropped. */
function readmeLines(): string[] {
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf("The first sale, from nothing");
  const open = readme.indexOf("```sh\n", start) + 6;
  const block = readme.slice(open, readme.indexOf("\n```", open));
  return block
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
}

/** Splits a command line on spaces, keeping "double quoted" words whole. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe("the README's first sale", { timeout: 180_000 }, () => {
  it("runs every command of the block; the handler verifies the trigger's and the checkout's order.paid", async () => {
    const lines = readmeLines();
    expect(lines[0]).toBe("till login");
    const handlerPort = String(await freePort());
    const env = cliEnv(tempDir("till-first-sale-home-"), { TILL_SERVER: server.url });
    const shellEnv: Record<string, string> = {
      ...env,
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ""}`,
    };
    let dir = cwd;
    let productId = "";
    let handlerOut = "";
    let listenErr = "";
    const run = async (args: string[]) => {
      const r = await execa(process.execPath, [tillBin, ...args], {
        env,
        extendEnv: false,
        reject: false,
        cwd: dir,
        stdin: "ignore",
      });
      expect(r.exitCode, `till ${args.join(" ")}\n${r.stderr}`).toBe(0);
      return r;
    };

    for (const raw of lines) {
      const line = raw.replaceAll("3000", handlerPort);
      if (line === "till login") {
        const child = execa(process.execPath, [tillBin, "login"], {
          env,
          extendEnv: false,
          reject: false,
          cwd: dir,
          stdin: "ignore",
        });
        let stderr = "";
        child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
        await waitFor(() => /^\s{4}(\S{8})\s*$/m.test(stderr), 20_000, `a code\n${stderr}`);
        const code = /^\s{4}(\S{8})\s*$/m.exec(stderr)![1]!;
        expect(stderr).toContain(`open ${server.url}/device and enter the code`);
        expect(stderr).toContain(`or open ${server.url}/device?user_code=${code}`);
        // What the /device page does once the user is signed in and approves.
        expect(
          (await api(server.url, `/api/auth/device?user_code=${code}`, { token: user.token }))
            .status,
        ).toBe(200);
        expect(
          (
            await api(server.url, "/api/auth/device/approve", {
              token: user.token,
              body: { userCode: code },
            })
          ).status,
        ).toBe(200);
        const result = await child;
        expect(result.exitCode, result.stderr).toBe(0);
        expect(result.stdout).toContain(`Logged in to ${server.url} as ${user.email}.`);
      } else if (line.startsWith("cd ")) {
        // cd <dir> && npm install && export WEBHOOK_SECRET=$(till listen --print-secret)
        const [cd, install, exported] = line.split(" && ");
        dir = path.join(dir, cd!.slice(3));
        expect(install).toBe("npm install");
        symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"));
        const m = /^export (\w+)=\$\(till (.+)\)$/.exec(exported!)!;
        const secret = (await run(words(m[2]!))).stdout.trim();
        expect(secret).toMatch(/^whsec_/);
        shellEnv[m[1]!] = secret;
      } else if (line === "npm start &") {
        const handler = execa("npm", ["start"], {
          env: { ...shellEnv, PORT: handlerPort },
          extendEnv: false,
          reject: false,
          cwd: dir,
          detached: true,
        });
        children.push(handler);
        handler.stdout!.on("data", (d: Buffer) => (handlerOut += d.toString()));
        handler.stderr!.on("data", (d: Buffer) => (handlerOut += d.toString()));
        await waitFor(() => handlerOut.includes("Listening on"), 30_000, `handler\n${handlerOut}`);
      } else if (line.startsWith("till listen --forward-to")) {
        const listener = execa(process.execPath, [tillBin, ...words(line).slice(1)], {
          env,
          extendEnv: false,
          reject: false,
          cwd: dir,
          stdin: "ignore",
          detached: true,
        });
        children.push(listener);
        listener.stderr!.on("data", (d: Buffer) => (listenErr += d.toString()));
        await waitFor(() => listenErr.includes("Ready."), 20_000, `listener\n${listenErr}`);
        expect(listenErr).toContain(shellEnv.WEBHOOK_SECRET);
      } else if (line.startsWith("till ")) {
        const args = words(line.replace("<id>", productId)).slice(1);
        const r = await run(args);
        if (args[0] === "products")
          productId = /Created product ([0-9a-f-]{36})/.exec(r.stdout)![1]!;
        if (args[0] === "trigger") {
          const orderId = /\(order ([0-9a-f-]{36})\)/.exec(r.stdout)![1]!;
          await waitFor(
            () => handlerOut.includes(`Received order.paid ${orderId}`),
            30_000,
            `the trigger's order.paid verified by the handler\n${handlerOut}\n${listenErr}`,
          );
        }
        if (args[0] === "checkouts") {
          // No browser here: pay as the hosted page does, with the sandbox's test card.
          expect(r.stderr).toMatch(/Open http:\/\/\S+\/checkout\//);
          const id = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/.exec(
            r.stdout,
          )![1]!;
          const checkout = await api(server.url, `/v1/checkouts/${id}`, { token: user.token });
          const paid = await api(
            server.url,
            `/v1/checkouts/client/${checkout.body.client_secret}/confirm`,
            {
              body: {
                customer_email: "buyer@example.com",
                customer_billing_address: US_ADDRESS,
                confirmation_token_id: "sandbox_token_success",
              },
            },
          );
          expect(paid.status, JSON.stringify(paid.body)).toBe(200);
          const orders = await api(server.url, `/v1/orders/?checkout_id=${id}`, {
            token: user.token,
          });
          const orderId = orders.body.items[0].id as string;
          await waitFor(
            () => handlerOut.includes(`Received order.paid ${orderId}`),
            30_000,
            `the checkout's order.paid verified by the handler\n${handlerOut}\n${listenErr}`,
          );
        }
      } else {
        throw new Error(`the test does not know how to run this README line: ${raw}`);
      }
    }
    expect(productId).not.toBe("");
    expect(handlerOut).not.toContain("invalid signature");
  });
});
