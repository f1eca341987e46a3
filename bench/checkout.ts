// POST /v1/checkouts/ through till (auth, validation, pricing, one insert of the session with its outbox event)
// beside a reference server doing a bare 3-statement transaction on the same database (read the
// product, insert a session row, insert an event row), interleaved rounds at 50 and 10 concurrent.
//
//   node bench/checkout.ts [--pg postgres://postgres@127.0.0.1:5432/postgres] [--rounds 3] [--seconds 10] [--profile DIR] [--queries]
// Each round also prints the CPU time per request of the server and of PostgreSQL (from /proc).
// --profile writes a CPU profile of the till server to DIR. --queries prints the statements one
// create sends to the database (each is a round trip) and the server's CPU time per create (the
// mean over 200 sequential creates), beside the reference's, and exits.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import postgres from "postgres";

const { values } = parseArgs({
  options: {
    serve: { type: "string" },
    url: { type: "string" },
    pg: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "10" },
    profile: { type: "string" },
    queries: { type: "boolean", default: false },
  },
});

// --queries: each server keeps the statements it sent since the last SIGUSR2; on SIGUSR2 it writes
// them (QUERY lines) and then its CPU time and statement count so far (a STATS line) to stderr.
let statementCount = 0;
const recentStatements: string[] = [];
function noteStatement(statement: string): void {
  statementCount++;
  if (recentStatements.length < 200) recentStatements.push(statement.replace(/\s+/g, " "));
}
function reportStatsOnSignal(): void {
  process.on("SIGUSR2", () => {
    const u = process.cpuUsage();
    const lines = recentStatements.splice(0).map((q) => `QUERY ${q}\n`);
    process.stderr.write(`${lines.join("")}STATS ${u.user + u.system} ${statementCount}\n`);
  });
}

async function serveReference(url: string): Promise<void> {
  reportStatsOnSignal();
  const sql = postgres(url, {
    max: 10,
    onnotice: () => {},
    ...(values.queries ? { debug: (_c: number, q: string) => noteStatement(q) } : {}),
  });
  await sql`create table if not exists bench_ref_sessions (id uuid primary key, product_id uuid not null, amount bigint not null, created_at timestamptz not null default now())`;
  await sql`create table if not exists bench_ref_events (id bigserial primary key, session_id uuid not null, payload jsonb not null)`;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", async () => {
      const { products } = JSON.parse(body) as { products: string[] };
      const id = randomUUID();
      const row = await sql.begin(async (tx) => {
        const [p] = await tx`select id from products where id = ${products[0]!}`;
        await tx`insert into bench_ref_sessions (id, product_id, amount) values (${id}, ${p!.id}, 1500)`;
        await tx`insert into bench_ref_events (session_id, payload) values (${id}, ${tx.json({ type: "checkout.created", id })})`;
        return { id, status: "open", total_amount: 1500 };
      });
      const out = JSON.stringify(row);
      res.writeHead(201, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(out),
      });
      res.end(out);
    });
  });
  server.listen(0, "127.0.0.1", () =>
    process.stderr.write(`PORT ${(server.address() as { port: number }).port}\n`),
  );
}

async function serveTill(url: string): Promise<void> {
  // With --cpu-prof the profile is written on exit; SIGTERM must exit through Node, not kill it.
  process.once("SIGTERM", () => process.exit(0));
  reportStatsOnSignal();
  const { loadConfig } = await import("../server/config.ts");
  const { start } = await import("../server/main.ts");
  const { openDb } = await import("../db/client.ts");
  const port = await freePort();
  const config = loadConfig({
    command: "serve",
    env: {
      PORT: String(port),
      BASE_URL: `http://127.0.0.1:${port}`,
      HOST: "127.0.0.1",
      AUTH_SECRET: "k".repeat(40),
      TILL_PAYMENTS: "none",
      DATABASE_URL: url,
      LOG_LEVEL: "warn",
      AUTH_RATE_LIMIT: "false",
      AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
    },
    cwd: mkdtempSync(path.join(os.tmpdir(), "till-bench-")),
  });
  const database =
    config.database.kind === "postgres"
      ? await openDb(config.database, values.queries ? { onQuery: noteStatement } : {})
      : undefined;
  const server = await start(config, { worker: false, ...(database ? { database } : {}) });
  process.stderr.write(`PORT ${new URL(server.url).port}\n`);
}

function freePort(): Promise<number> {
  const probe = http.createServer();
  return new Promise((resolve) =>
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    }),
  );
}

interface Stats {
  cpuUs: number;
  statementCount: number;
  statements: string[];
}

interface Launched {
  child: ChildProcess;
  base: string;
  /** With --queries: CPU time and statements so far, and the statements sent since the last call. */
  stats(): Promise<Stats>;
}

function launch(kind: string, url: string): Promise<Launched> {
  const profile =
    kind === "till" && values.profile ? ["--cpu-prof", `--cpu-prof-dir=${values.profile}`] : [];
  const queries = values.queries ? ["--queries"] : [];
  const child = spawn(
    process.execPath,
    [...profile, fileURLToPath(import.meta.url), "--serve", kind, "--url", url, ...queries],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let statements: string[] = [];
  let waiter: ((s: Stats) => void) | null = null;
  const stats = () =>
    new Promise<Stats>((resolve) => {
      waiter = resolve;
      child.kill("SIGUSR2");
    });
  return new Promise((resolve, reject) => {
    let err = "";
    let pending = "";
    child.stderr!.on("data", (d: Buffer) => {
      const lines = (pending + d.toString()).split("\n");
      pending = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith("QUERY ")) statements.push(line.slice(6));
        else if (line.startsWith("STATS ")) {
          const [cpuUs, statementCount] = line.slice(6).split(" ").map(Number);
          waiter?.({ cpuUs: cpuUs!, statementCount: statementCount!, statements });
          statements = [];
        } else err += `${line}\n`;
      }
      const m = /PORT (\d+)/.exec(err);
      if (m) resolve({ child, base: `http://127.0.0.1:${m[1]}`, stats });
    });
    child.once("exit", (code) => reject(new Error(`${kind} exited ${code}: ${err}`)));
  });
}

/**
 * CPU time of the host's PostgreSQL processes so far, in ms (Linux /proc at 100 ticks a second; null
 * elsewhere). Every postgres process counts, so other work on the same server inflates it.
 */
function databaseCpuMs(): number | null {
  try {
    let ticks = 0;
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        if (!stat.includes("(postgres)")) continue;
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // the process ended meanwhile
      }
    }
    return (ticks * 1000) / 100;
  } catch {
    return null;
  }
}

/** One create's statements, then the mean CPU time and statement count over `n` sequential creates. */
async function perCreate(server: Launched, url: string, token: string, productId: string, n = 200) {
  const post = async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ products: [productId] }),
    });
    if (res.status !== 201) throw new Error(`answered ${res.status}`);
    await res.arrayBuffer();
  };
  // Warm up first: statements are prepared per connection (one more round trip the first time).
  for (let i = 0; i < 50; i++) await post();
  await server.stats();
  await post();
  const one = await server.stats();
  const db0 = databaseCpuMs();
  for (let i = 0; i < n; i++) await post();
  const db1 = databaseCpuMs();
  const after = await server.stats();
  const dbCpuMsPerCreate = db0 === null || db1 === null ? null : (db1 - db0) / n;
  return {
    statements: one.statements,
    statementsPerCreate: (after.statementCount - one.statementCount) / n,
    cpuMsPerCreate: (after.cpuUs - one.cpuUs) / n / 1000,
    dbCpuMsPerCreate,
  };
}

async function seed(base: string): Promise<{ token: string; productId: string }> {
  const headers = { "content-type": "application/json", origin: base };
  const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers,
    body: JSON.stringify({ email: "bench@example.com", password: "bench password", name: "Bench" }),
  });
  const session = signUp.headers.get("set-auth-token")!;
  const auth = { ...headers, authorization: `Bearer ${session}` };
  const org = (await (
    await fetch(`${base}/v1/organizations/`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "Bench", slug: `bench-${Date.now()}` }),
    })
  ).json()) as { id: string };
  const oat = (await (
    await fetch(`${base}/v1/organization-access-tokens/`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({
        organization_id: org.id,
        comment: "bench",
        scopes: ["products:write", "checkouts:write"],
      }),
    })
  ).json()) as { token: string };
  const product = (await (
    await fetch(`${base}/v1/products/`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${oat.token}` },
      body: JSON.stringify({
        name: "Pro",
        recurring_interval: "month",
        prices: [{ amount_type: "fixed", price_amount: 1500, price_currency: "usd" }],
      }),
    })
  ).json()) as { id: string };
  return { token: oat.token, productId: product.id };
}

async function load(
  url: string,
  token: string,
  productId: string,
  connections: number,
  seconds: number,
) {
  const r = await autocannon({
    url,
    method: "POST",
    connections,
    duration: seconds,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ products: [productId] }),
  });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

async function main(): Promise<void> {
  const admin = postgres(values.pg!, { max: 1, onnotice: () => {} });
  const name = `till_bench_checkout_${process.pid}`;
  await admin.unsafe(`create database "${name}"`);
  const dbUrl = Object.assign(new URL(values.pg!), { pathname: `/${name}` }).toString();
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const till = await launch("till", dbUrl);
  const ref = await launch("reference", dbUrl);
  try {
    const { token, productId } = await seed(till.base);
    const targets = { till: `${till.base}/v1/checkouts/`, reference: `${ref.base}/checkouts` };
    for (const [k, u] of Object.entries(targets)) {
      const probe = await fetch(u, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ products: [productId] }),
      });
      if (probe.status !== 201)
        throw new Error(`${k} answered ${probe.status}: ${await probe.text()}`);
    }
    if (values.queries) {
      for (const [k, server] of [
        ["till", till],
        ["reference", ref],
      ] as const) {
        const r = await perCreate(server, targets[k], token, productId);
        process.stdout.write(
          `${k}: ${r.statementsPerCreate.toFixed(1)} statements (round trips) and ${r.cpuMsPerCreate.toFixed(2)} ms of server CPU${r.dbCpuMsPerCreate === null ? "" : ` and ${r.dbCpuMsPerCreate.toFixed(2)} ms of PostgreSQL CPU`} per create; one create:\n${r.statements.map((q) => `  ${q.length > 160 ? `${q.slice(0, 160)}…` : q}`).join("\n")}\n`,
        );
      }
      return;
    }
    for (const connections of [50, 10]) {
      const samples: Record<string, { rps: number; p99: number; errors: number }[]> = {
        till: [],
        reference: [],
      };
      const servers = { till, reference: ref };
      for (const [, u] of Object.entries(targets)) await load(u, token, productId, connections, 1);
      for (let r = 1; r <= rounds; r++) {
        for (const [k, u] of Object.entries(targets)) {
          // CPU per request under load: the server's own, and PostgreSQL's (every postgres process).
          const server = servers[k as keyof typeof servers];
          const [cpu0, db0] = [await server.stats(), databaseCpuMs()];
          const s = await load(u, token, productId, connections, seconds);
          const [cpu1, db1] = [await server.stats(), databaseCpuMs()];
          const requests = s.rps * seconds;
          const dbPer =
            db0 === null || db1 === null
              ? ""
              : `, PostgreSQL ${((db1 - db0) / requests).toFixed(2)} ms`;
          samples[k]!.push(s);
          process.stdout.write(
            `c=${connections} round ${r} ${k.padEnd(10)} ${s.rps.toFixed(0).padStart(7)} req/s  p99 ${s.p99} ms  errors ${s.errors}  CPU per request: server ${((cpu1.cpuUs - cpu0.cpuUs) / 1000 / requests).toFixed(2)} ms${dbPer}\n`,
          );
        }
      }
      const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const ratios = samples.till!.map((s, i) => s.rps / samples.reference![i]!.rps);
      process.stdout.write(
        `c=${connections}: till ${med(samples.till!.map((s) => s.rps)).toFixed(0)} req/s (p99 ${med(samples.till!.map((s) => s.p99))} ms) · reference ${med(samples.reference!.map((s) => s.rps)).toFixed(0)} req/s (p99 ${med(samples.reference!.map((s) => s.p99))} ms) · ratio min ${Math.min(...ratios).toFixed(2)} median ${med(ratios).toFixed(2)} max ${Math.max(...ratios).toFixed(2)}\n`,
      );
    }
    process.stdout.write(
      "goal: >= 0.4x the reference's req/s; p99 <= 150 ms at 50 concurrent, <= 50 ms at 10\n",
    );
  } finally {
    till.child.kill("SIGTERM");
    ref.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 1000));
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}

if (values.serve === "till") await serveTill(values.url!);
else if (values.serve === "reference") await serveReference(values.url!);
else await main();
