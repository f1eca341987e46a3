// `till listen` across a sleep: a laptop that sleeps with the stream's socket open reads, on waking,
// messages the server signed long before. Here the server's clock runs 10 minutes behind the CLI's
// and the handler's (the same gap a 10-minute sleep leaves between writing and reading), and the
// listener is stopped (SIGSTOP) while the events are written. Every event must still be forwarded
// with a signature the handler verifies under its 5-minute tolerance.
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { cliEnv, till } from "../test/helpers/cli.ts";
import { tillBin } from "../test/helpers/process.ts";
import { startTestServer, type TestServer } from "../test/helpers/server.ts";
import { startReceiver, waitFor, type Receiver } from "../test/helpers/webhook-receiver.ts";
import { TestClock } from "../server/lib/clock.ts";

let t: TestServer;
let receiver: Receiver;
const clock = new TestClock();
let secret = "";

beforeAll(async () => {
  t = await startTestServer({ clock });
  receiver = await startReceiver({ secretFor: () => secret, skipParse: true });
});
afterAll(async () => {
  await receiver?.close();
  await t?.stop();
});

describe("till listen after a sleep", { timeout: 90_000 }, () => {
  it("forwards events written 10 minutes before they are read, re-signed so the handler verifies them", async () => {
    const seller = await createSeller(t.url, ["organizations:write"]);
    const orgId = seller.organization.id;
    const env = cliEnv(undefined, { TILL_TOKEN: seller.user.token, TILL_SERVER: t.url });
    const printed = await till(["listen", "--org", orgId, "--print-secret", "--json"], env);
    expect(printed.exitCode, printed.stderr).toBe(0);
    secret = (JSON.parse(printed.stdout) as { secret: string }).secret;
    expect(secret).toMatch(/^whsec_/);

    const child = execa(
      process.execPath,
      [tillBin, "listen", "--org", orgId, "--forward-to", `${receiver.url}/hooks`, "--json"],
      { env, extendEnv: false, reject: false, stdin: "ignore" },
    );
    let stderr = "";
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const patch = (website: string) =>
      api(t.url, `/v1/organizations/${orgId}`, {
        method: "PATCH",
        token: seller.user.token,
        body: { website },
      });
    // Awake: the first event goes through as usual (and shows the stream is open).
    // (Emitted again each second until one arrives: events before the stream opens are not sent.)
    let tries = 0;
    let last = 0;
    await waitFor(
      async () => {
        if (receiver.receipts.length > 0) return true;
        if (Date.now() - last > 1000) {
          last = Date.now();
          await patch(`https://awake-${++tries}.test`);
        }
        return false;
      },
      20_000,
      "first event forwarded",
    );
    const mark = receiver.receipts.length;

    // Asleep: the listener is frozen while the server writes three events stamped 10 minutes ago.
    child.kill("SIGSTOP");
    clock.advance(-10 * 60_000);
    for (const n of [1, 2, 3]) expect((await patch(`https://asleep-${n}.test`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    child.kill("SIGCONT");

    await waitFor(() => receiver.receipts.length >= mark + 3, 20_000, `three events\n${stderr}`);
    const after = receiver.receipts.slice(mark);
    expect(after.map((r) => JSON.parse(r.body).data.website)).toEqual([
      "https://asleep-1.test",
      "https://asleep-2.test",
      "https://asleep-3.test",
    ]);
    expect(after.every((r) => r.standardOk)).toBe(true);
    // Re-signed at forward time: the handler sees a fresh timestamp.
    for (const r of after)
      expect(Math.abs(Date.now() / 1000 - Number(r.timestamp))).toBeLessThan(60);
    child.kill("SIGINT");
    const result = await child;
    expect(result.stderr).not.toContain("signature verification");
  });
});
