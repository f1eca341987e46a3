// Bodies sent to better-auth's routes: one past the limit is refused before it is read, and one
// better-auth answers without reading does not stall the next request on the same connection.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.ts";
import { AUTH_BODY_LIMIT } from "./routes.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ worker: false });
});
afterAll(() => t?.stop());

/** One request over `agent`, answered within 5 s or rejected. */
function send(agent: http.Agent, method: string, path: string, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      `${t.url}${path}`,
      {
        agent,
        method,
        timeout: 5_000,
        headers: {
          origin: t.url,
          ...(body === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer in 5 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

describe("bodies on /api/auth", () => {
  it("a body past the limit is a 413 and creates nobody", async () => {
    const agent = new http.Agent();
    const email = "big-body@example.com";
    const body = JSON.stringify({
      email,
      password: "long enough pw",
      name: "x".repeat(AUTH_BODY_LIMIT),
    });
    const res = await send(agent, "POST", "/api/auth/sign-up/email", body);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    const signIn = await send(
      agent,
      "POST",
      "/api/auth/sign-in/email",
      JSON.stringify({ email, password: "long enough pw" }),
    );
    expect(signIn.status).toBe(401);
    agent.destroy();
  });

  it("an unread body does not hold the connection's next request", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const unread = await send(
      agent,
      "POST",
      "/api/auth/get-session",
      JSON.stringify({ a: "x".repeat(200_000) }),
    );
    expect(unread.status).toBe(405);
    const next = await send(agent, "GET", "/api/auth/get-session");
    expect(next.status).toBe(200);
    agent.destroy();
  });
});
