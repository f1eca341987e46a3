// A live stream ends soon after its credential does: signing out, or revoking the session from
// another one, closes an open /v1/cli/listen stream within seconds, so it stops delivering the
// organization's data.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../../../test/helpers/auth.ts";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { openSse } from "../../../test/helpers/sse.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

async function endsWithin(ended: Promise<void>, ms: number): Promise<boolean> {
  return Promise.race([
    ended.then(() => true),
    new Promise<boolean>((r) => setTimeout(() => r(false), ms)),
  ]);
}

describe("listen stream after its credential ends", () => {
  it("signing out ends the stream within seconds", async () => {
    const seller = await createSeller(t.url, ["webhooks:read"]);
    const stream = await openSse(
      `${t.url}/v1/cli/listen/${seller.organization.id}`,
      seller.user.token,
    );
    expect(stream.status).toBe(200);
    expect(await endsWithin(stream.ended, 2_500)).toBe(false);
    const out = await api(t.url, "/api/auth/sign-out", { token: seller.user.token, body: {} });
    expect(out.status).toBe(200);
    expect(await endsWithin(stream.ended, 6_000)).toBe(true);
  });

  it("revoking the session from another session ends the stream", async () => {
    const seller = await createSeller(t.url, ["webhooks:read"]);
    const other = await api(t.url, "/api/auth/sign-in/email", {
      body: { email: seller.user.email, password: seller.user.password },
    });
    const otherToken = other.headers.get("set-auth-token");
    expect(otherToken).toBeTruthy();
    const stream = await openSse(
      `${t.url}/v1/cli/listen/${seller.organization.id}`,
      seller.user.token,
    );
    expect(stream.status).toBe(200);
    const revoked = await api(t.url, "/api/auth/revoke-session", {
      token: otherToken!,
      // The bearer value is the signed cookie value; the session's own token comes before the dot.
      body: { token: decodeURIComponent(seller.user.token).split(".")[0] },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(await endsWithin(stream.ended, 6_000)).toBe(true);
    // The session that revoked it may still listen.
    const still = await openSse(`${t.url}/v1/cli/listen/${seller.organization.id}`, otherToken!);
    expect(still.status).toBe(200);
    expect(await endsWithin(still.ended, 2_500)).toBe(false);
    still.close();
  });
});
