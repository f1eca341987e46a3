// Events/s through POST /v1/events/ingest (till's full chain: token auth, zod validation, customer
// resolution, one INSERT … ON CONFLICT DO NOTHING per batch) beside a reference server — bare
// node:http parsing the same JSON and running one multi-row INSERT … ON CONFLICT DO NOTHING into the
// same events table with the same indexes. Each server runs in its own process; rounds interleave.
// Run on PostgreSQL (a fresh database created and dropped here) and on PGlite (each server its own
// data dir: PGlite is in-process and cannot be shared).
//
//   node bench/ingest.ts [--rounds 3] [--seconds 10] [--connections 50] [--batch 100]
//                        [--pg postgres://postgres@127.0.0.1:5432/postgres] [--only postgres|pglite]
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const { values } = parseArgs({
  options: {
    serve: { type: "string" },
    db: { type: "string" },
    org: { type: "string" },
    port: { type: "string", default: "0" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    batch: { type: "string", default: "100" },
    pg: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    only: { type: "string" },
  },
});

interface IngestEvent {
  name: string;
  external_customer_id: string;
  external_id?: string;
  timestamp?: string;
  metadata?: Record<string, unknown>;
}

// ---- servers (child processes) ----

async function serveTill(db: string, port: string): Promise<void> {
  const { loadConfig } = await import("../server/config.ts");
  const { start } = await import("../server/main.ts");
  const dir = mkdtempSync(path.join(os.tmpdir(), "till-bench-ingest-"));
  // BASE_URL matches the address the seller is created through, so better-auth trusts its Origin.
  const env: Record<string, string> = {
    PORT: port,
    HOST: "127.0.0.1",
    BASE_URL: `http://127.0.0.1:${port}`,
    AUTH_SECRET: "b".repeat(40),
    TILL_PAYMENTS: "none",
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
    TILL_DATA_DIR: dir,
    AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
  };
  if (db !== "pglite") env.DATABASE_URL = db;
  const server = await start(loadConfig({ command: "serve", env, cwd: dir }), { worker: false });
  process.stderr.write(`PORT ${port}\n`);
  void server;
}

async function freePort(): Promise<string> {
  const net = await import("node:net");
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(String(port)));
    });
  });
}

/** The reference: no framework, no auth, no validation beyond JSON.parse; one INSERT per batch. */
async function serveReference(db: string, organizationId: string): Promise<void> {
  const http = await import("node:http");
  let insert: (rows: unknown[][]) => Promise<number>;
  const COLS = [
    "organization_id",
    "name",
    "source",
    "timestamp",
    "ingested_at",
    "external_customer_id",
    "external_id",
    "metadata",
  ];
  if (db === "pglite") {
    const { openDb, migrate } = await import("../db/client.ts");
    const dir = mkdtempSync(path.join(os.tmpdir(), "till-bench-ref-"));
    const database = await openDb({ kind: "pglite", dataDir: dir });
    await migrate(database);
    const pg = database.pglite!;
    await pg.query(
      "insert into organization (id, name, slug, created_at) values ($1, 'ref', $2, now())",
      [organizationId, `ref-${organizationId}`],
    );
    insert = async (rows) => {
      const params: unknown[] = [];
      const tuples = rows.map((r) => `(${r.map((v) => `$${params.push(v)}`).join(", ")})`);
      const res = await pg.query(
        `insert into events (${COLS.join(", ")}) values ${tuples.join(", ")} on conflict do nothing returning id`,
        params,
      );
      return res.rows.length;
    };
  } else {
    const { default: postgres } = await import("postgres");
    const sql = postgres(db, { max: 10, onnotice: () => {} });
    insert = async (rows) => {
      const res =
        await sql`insert into events ${sql(rows.map((r) => Object.fromEntries(COLS.map((c, i) => [c, r[i]]))) as never, ...COLS)} on conflict do nothing returning id`;
      return res.length;
    };
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      try {
        const { events } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          events: IngestEvent[];
        };
        const now = new Date().toISOString();
        const rows = events.map((e) => [
          organizationId,
          e.name,
          "user",
          e.timestamp ?? now,
          now,
          e.external_customer_id,
          e.external_id ?? null,
          JSON.stringify(e.metadata ?? {}),
        ]);
        const inserted = await insert(rows);
        const body = JSON.stringify({ inserted, duplicates: rows.length - inserted });
        res
          .writeHead(200, {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          })
          .end(body);
      } catch (err) {
        res.writeHead(500).end(String(err));
      }
    });
  });
  server.listen(0, "127.0.0.1", () =>
    process.stderr.write(`PORT ${(server.address() as { port: number }).port}\n`),
  );
}

// ---- driver ----

interface Target {
  name: string;
  child: ChildProcess;
  base: string;
}

async function launch(name: string, args: string[]): Promise<Target> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let err = "";
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /PORT (\d+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}: ${err}`)));
  });
  return { name, child, base: `http://127.0.0.1:${port}` };
}

/** One body per request: autocannon replaces [<id>] with a fresh id, so external_ids never repeat. */
function batchBody(size: number): string {
  const events: IngestEvent[] = Array.from({ length: size }, (_, i) => ({
    name: i % 5 === 0 ? "login" : "api_call",
    external_customer_id: `usr_${i % 37}`,
    external_id: `[<id>]-${i}`,
    metadata: { tokens: (i * 7) % 100, model: i % 2 ? "small" : "large", region: "eu" },
  }));
  return JSON.stringify({ events });
}

interface Sample {
  eventsPerSecond: number;
  p99: number;
  errors: number;
}

async function load(
  url: string,
  token: string | null,
  seconds: number,
  connections: number,
  batch: number,
): Promise<Sample> {
  const result = await autocannon({
    url,
    method: "POST",
    connections,
    duration: seconds,
    idReplacement: true,
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: batchBody(batch),
  });
  return {
    eventsPerSecond: result.requests.average * batch,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function seller(base: string): Promise<{ token: string; organizationId: string }> {
  const { createSeller } = await import("../test/helpers/auth.ts");
  const s = await createSeller(base, ["events:write", "customers:write"]);
  return { token: s.token, organizationId: s.organization.id };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function runOn(
  kind: "postgres" | "pglite",
  rounds: number,
  seconds: number,
  connections: number,
  batch: number,
): Promise<string> {
  let dbArg = "pglite";
  let drop: (() => Promise<void>) | null = null;
  if (kind === "postgres") {
    const { createDatabase, dropDatabase } = await import("../test/helpers/db.ts");
    const { databaseUrl } = await import("../test/helpers/template.ts");
    const name = `till_bench_ingest_${randomBytes(4).toString("hex")}`;
    await createDatabase(values.pg!, name);
    dbArg = databaseUrl(values.pg!, name);
    drop = () => dropDatabase(values.pg!, name);
  }
  const targets: Target[] = [];
  try {
    const till = await launch("till", [
      "--serve",
      "till",
      "--db",
      dbArg,
      "--port",
      await freePort(),
    ]);
    targets.push(till);
    const { token, organizationId } = await seller(till.base);
    targets.push(
      await launch("reference", ["--serve", "ref", "--db", dbArg, "--org", organizationId]),
    );
    const urls = { till: `${till.base}/v1/events/ingest`, reference: `${targets[1]!.base}/ingest` };
    const samples: Record<string, Sample[]> = { till: [], reference: [] };
    for (const t of targets) await load(urls[t.name as "till"], token, 1, connections, batch); // warm-up
    for (let r = 1; r <= rounds; r++) {
      for (const t of targets) {
        const s = await load(
          urls[t.name as "till"],
          t.name === "till" ? token : null,
          seconds,
          connections,
          batch,
        );
        samples[t.name]!.push(s);
        process.stdout.write(
          `${kind} round ${r} ${t.name.padEnd(10)} ${s.eventsPerSecond.toFixed(0).padStart(8)} events/s  p99 ${s.p99} ms  errors ${s.errors}\n`,
        );
      }
    }
    const ratios = samples.till!.map(
      (s, i) => s.eventsPerSecond / samples.reference![i]!.eventsPerSecond,
    );
    return (
      `${kind.padEnd(9)} till ${median(samples.till!.map((s) => s.eventsPerSecond))
        .toFixed(0)
        .padStart(7)} ev/s` +
      `  reference ${median(samples.reference!.map((s) => s.eventsPerSecond))
        .toFixed(0)
        .padStart(7)} ev/s` +
      `  ratio min ${Math.min(...ratios).toFixed(2)} median ${median(ratios).toFixed(2)} max ${Math.max(...ratios).toFixed(2)}` +
      `  p99 till ${median(samples.till!.map((s) => s.p99))} ms / ref ${median(samples.reference!.map((s) => s.p99))} ms`
    );
  } finally {
    for (const t of targets) t.child.kill("SIGTERM");
    await Promise.all(
      targets.map(
        (t) => new Promise((r) => (t.child.exitCode !== null ? r(null) : t.child.once("exit", r))),
      ),
    );
    await drop?.();
  }
}

async function main(): Promise<void> {
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const batch = Number(values.batch);
  const kinds = (values.only ? [values.only] : ["postgres", "pglite"]) as ("postgres" | "pglite")[];
  const lines: string[] = [];
  for (const kind of kinds) lines.push(await runOn(kind, rounds, seconds, connections, batch));
  process.stdout.write(
    `\nPOST /v1/events/ingest, ${batch}-event batches, ${connections} connections, ${seconds} s x ${rounds} rounds (interleaved)\n`,
  );
  for (const line of lines) process.stdout.write(`${line}\n`);
  process.stdout.write("goal: till >= 0.50x the reference on each database\n");
}

if (values.serve === "till") await serveTill(values.db!, values.port!);
else if (values.serve === "ref") await serveReference(values.db!, values.org!);
else await main();
