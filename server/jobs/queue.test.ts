import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../test/helpers/server.ts";
import { NOOP_JOB } from "./system.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

describe("job queue", () => {
  it("works a queued system.noop job to completion in the server process", async () => {
    const { queue } = t.server;
    const id = await queue.send(NOOP_JOB, { note: "hello" });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const deadline = Date.now() + 15_000;
    let state = "";
    while (Date.now() < deadline) {
      const job = await queue.boss.getJobById<{ note: string }>(NOOP_JOB, id!);
      state = job?.state ?? "missing";
      if (state === "completed") {
        expect(job?.data).toEqual({ note: "hello" });
        expect(job?.output).toEqual({ ok: true, count: 1 });
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(state).toBe("completed");
  });
});
