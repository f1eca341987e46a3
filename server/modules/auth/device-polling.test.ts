// Device-flow polling follows RFC 8628 with rate limiting on: a client polling at the interval it
// was given is answered authorization_pending for as long as its code lives (never 429), and one
// polling faster is told slow_down.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";

const GRANT = "urn:ietf:params:oauth:grant-type:device_code";
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ env: { AUTH_RATE_LIMIT: "true" } });
});
afterAll(() => t?.stop());

async function poll(deviceCode: string) {
  const res = await fetch(`${t.url}/api/auth/device/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ grant_type: GRANT, device_code: deviceCode, client_id: "till-cli" }),
  });
  return { status: res.status, body: (await res.json()) as { error?: string } };
}

describe("device token polling", () => {
  it("130 polls at the interval (over 10 minutes of a real login) never get a 429", async () => {
    const code = await fetch(`${t.url}/api/auth/device/code`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: "till-cli", scope: "openid" }).toString(),
    });
    expect(code.status).toBe(200);
    const { device_code: deviceCode } = (await code.json()) as { device_code: string };
    for (let i = 0; i < 130; i++) {
      // The interval has passed since the previous poll, as for a client that waits it out.
      await t.server.database.rows(
        sql`update device_code set last_polled_at = now() - interval '10 seconds' where device_code = ${deviceCode}`,
      );
      const res = await poll(deviceCode);
      expect(res.status, `poll ${i + 1}`).toBe(400);
      expect(res.body.error).toBe("authorization_pending");
    }
    const tooSoon = await poll(deviceCode);
    expect(tooSoon.status).toBe(400);
    expect(tooSoon.body.error).toBe("slow_down");
  });
});
