// Several read replicas (DATABASE_READ_URL with a comma-separated list): routed reads take turns
// across them, a replica that goes down is skipped while the others serve, and only with none left
// do the reads run on the primary. A proxy the test can cut stands in front of each replica (or,
// without real ones, of the primary itself, which answers the same reads).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, createSeller } from "../test/helpers/auth.ts";
import { CuttableProxy } from "../test/helpers/cuttable-proxy.ts";
import { openTestDatabase, usingPostgres, type TestDatabase } from "../test/helpers/db.ts";
import { freePort } from "../test/helpers/server.ts";
import { loadConfig } from "./config.ts";
import { start, type RunningServer } from "./main.ts";

describe.skipIf(!usingPostgres())("two read replicas", () => {
  const METRICS = "m".repeat(32);
  let testDb: TestDatabase;
  let server: RunningServer;
  const proxies: CuttableProxy[] = [];
  const names: string[] = [];
  let base: string;
  let token: string;

  beforeAll(async () => {
    testDb = await openTestDatabase();
    const targets = testDb.env.DATABASE_READ_URL?.split(",") ?? [testDb.url!];
    const urls: string[] = [];
    for (const i of [0, 1]) {
      const target = new URL(targets[i] ?? targets[0]!);
      const proxy = new CuttableProxy({
        host: target.hostname,
        port: Number(target.port || 5432),
      });
      target.host = `127.0.0.1:${await proxy.listen()}`;
      proxies.push(proxy);
      names.push(target.host);
      urls.push(target.toString());
    }
    const port = await freePort();
    base = `http://localhost:${port}`;
    const config = loadConfig({
      command: "test",
      env: {
        PORT: String(port),
        BASE_URL: base,
        LOG_LEVEL: "silent",
        ...testDb.env,
        DATABASE_READ_URL: urls.join(","),
        DATABASE_CONNECT_TIMEOUT_MS: "1000",
        METRICS_TOKEN: METRICS,
      },
    });
    server = await start(config, { worker: false });
    ({ token } = await createSeller(base, ["events:write", "meters:write"]));
    const events = [1, 2, 3].map((i) => ({ name: "api_call", external_customer_id: `usr_${i}` }));
    expect((await api(base, "/v1/events/ingest", { token, body: { events } })).status).toBe(200);
  });
  afterAll(async () => {
    for (const p of proxies) p.close();
    await server?.stop();
    await testDb?.dispose();
  });

  const listed = async () => {
    const res = await api(base, "/v1/events/?limit=1", { token });
    return { status: res.status, total: res.body?.pagination?.total_count as number };
  };
  /** Each series of /metrics by its labels: `name{replica="…"}` → value. */
  const metrics = async () => {
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } });
    const text = await res.text();
    const at = (series: string) => {
      const line = text.split("\n").find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    const per = (name: string) =>
      names.map((replica) => at(`${name}{replica="${replica}"}`) ?? Number.NaN);
    return {
      reads: per("till_db_replica_reads_total"),
      up: per("till_db_replica_up"),
      lag: per("till_db_replica_lag_seconds"),
      onPrimary: at("till_db_replica_reads_on_primary_total"),
    };
  };
  /** `rounds` rounds of four concurrent event lists, with `before(round)` run first. */
  const load = async (rounds: number, before: (round: number) => void = () => {}) => {
    const answers: { status: number; total: number }[] = [];
    for (let round = 0; round < rounds; round++) {
      before(round);
      answers.push(...(await Promise.all([listed(), listed(), listed(), listed()])));
    }
    return answers;
  };

  it("the routed reads take turns across both, each with its own lag", async () => {
    const before = await metrics();
    expect(await load(5)).toEqual(Array(20).fill({ status: 200, total: 3 }));
    const after = await metrics();
    const sent = after.reads.map((n, i) => n - before.reads[i]!);
    // In turn: neither replica gets most of them.
    expect(sent[0]! + sent[1]!).toBeGreaterThanOrEqual(20);
    expect(Math.abs(sent[0]! - sent[1]!)).toBeLessThanOrEqual(4);
    expect(after.up).toEqual([1, 1]);
    for (const lag of after.lag) expect(lag).toBeGreaterThanOrEqual(0);
    expect(after.onPrimary).toBe(0);
  });

  it("one stopped under load: the other serves every read, none goes to the primary", async () => {
    const answers = await load(8, (round) => round === 2 && proxies[0]!.down());
    expect(answers).toEqual(Array(32).fill({ status: 200, total: 3 }));
    const stopped = await metrics();
    expect(stopped.up).toEqual([0, 1]);
    expect(stopped.onPrimary).toBe(0);
    // Marked down: the next reads do not try it again.
    await load(3);
    const later = await metrics();
    expect(later.reads[0]).toBe(stopped.reads[0]);
    expect(later.reads[1]).toBeGreaterThanOrEqual(stopped.reads[1]! + 24);
  });

  it("both stopped: the reads answer from the primary, and /metrics counts them", async () => {
    const answers = await load(8, (round) => round === 2 && proxies[1]!.down());
    expect(answers).toEqual(Array(32).fill({ status: 200, total: 3 }));
    const after = await metrics();
    expect(after.up).toEqual([0, 0]);
    expect(after.onPrimary).toBeGreaterThanOrEqual(24);
    const meters = await api(base, "/v1/meters/", { token });
    expect(meters.status).toBe(200);
  });
});
