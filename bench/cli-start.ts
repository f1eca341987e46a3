// Wall time of the CLI as a user feels it: `till --help` beside `node -e ""`, and
// `till products list --json` against a local server beside a bare Node script doing the same GET
// with fetch (and one with ky). Median of several runs each, interleaved, printed as ratios.
//
//   node bench/cli-start.ts [--runs 15]
import { execFile } from "node:child_process";
import http from "node:http";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { loadConfig } from "../server/config.ts";
import { start } from "../server/main.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "15" } } });
const runs = Number(values.runs);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const till = path.join(root, "bin", "till.js");

const tmp = mkdtempSync(path.join(os.tmpdir(), "till-bench-cli-"));
const port = await new Promise<number>((resolve) => {
  const probe = http.createServer().listen(0, "127.0.0.1", () => {
    const p = (probe.address() as { port: number }).port;
    probe.close(() => resolve(p));
  });
});
const config = loadConfig({
  command: "serve",
  env: {
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    AUTH_SECRET: "c".repeat(40),
    TILL_PAYMENTS: "none",
    LOG_LEVEL: "silent",
    AUTH_REQUIRE_EMAIL_VERIFICATION: "false",
    AUTH_RATE_LIMIT: "false",
  },
  cwd: tmp,
});
const server = await start(config, { worker: false });

// A seller with a token, through the public API like any client.
const origin = { origin: server.url, "content-type": "application/json" };
const signUp = await fetch(`${server.url}/api/auth/sign-up/email`, {
  method: "POST",
  headers: origin,
  body: JSON.stringify({ email: "bench@example.com", password: "bench password 1", name: "Bench" }),
});
const session = signUp.headers.get("set-auth-token")!;
const auth = { ...origin, authorization: `Bearer ${session}` };
const org = (await (
  await fetch(`${server.url}/v1/organizations/`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ name: "Bench", slug: "bench-cli" }),
  })
).json()) as { id: string };
const oat = (await (
  await fetch(`${server.url}/v1/organization-access-tokens/`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ organization_id: org.id, comment: "bench", scopes: ["products:read"] }),
  })
).json()) as { token: string };

const bare = path.join(root, "bench", ".bare-ky-get.mjs");
writeFileSync(
  bare,
  `import ky from "ky";\nconst r = await ky.get(process.argv[2], { headers: { authorization: "Bearer " + process.argv[3] } }).json();\nprocess.stdout.write(JSON.stringify(r) + "\\n");\n`,
);

const bareFetch = path.join(root, "bench", ".bare-fetch-get.mjs");
writeFileSync(
  bareFetch,
  `const r = await fetch(process.argv[2], { headers: { authorization: "Bearer " + process.argv[3] } });\nprocess.stdout.write(JSON.stringify(await r.json()) + "\\n");\n`,
);

const env = {
  PATH: process.env.PATH ?? "",
  HOME: tmp,
  XDG_CONFIG_HOME: tmp,
  TILL_TOKEN: oat.token,
  TILL_SERVER: server.url,
  NO_COLOR: "1",
};
const cases: Record<string, string[]> = {
  "node -e ''": ["-e", ""],
  "till --help": [till, "--help"],
  "bare fetch GET": [bareFetch, `${server.url}/v1/products/?page=1&limit=10`, oat.token],
  "bare ky GET": [bare, `${server.url}/v1/products/?page=1&limit=10`, oat.token],
  "till products list --json": [till, "products", "list", "--json"],
};

// Asynchronous, so the server in this same process keeps answering while a command runs.
const execFileAsync = promisify(execFile);
async function time(args: string[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  await execFileAsync(process.execPath, args, { env });
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const samples = new Map<string, number[]>(Object.keys(cases).map((k) => [k, []]));
for (const args of Object.values(cases)) await time(args); // warm caches (compile cache, disk)
for (let i = 0; i < runs; i++)
  for (const [name, args] of Object.entries(cases)) samples.get(name)!.push(await time(args));
await server.stop();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const m = Object.fromEntries([...samples].map(([k, v]) => [k, median(v)]));
process.stdout.write(`median wall time over ${runs} runs (ms)\n`);
for (const [k, v] of Object.entries(m))
  process.stdout.write(`  ${k.padEnd(28)}${v.toFixed(1).padStart(8)}\n`);
process.stdout.write(
  `till --help / node -e ''                 ${(m["till --help"]! / m["node -e ''"]!).toFixed(2)}x   (target <= 2x)\n`,
);
process.stdout.write(
  `till products list --json / bare fetch   ${(m["till products list --json"]! / m["bare fetch GET"]!).toFixed(2)}x   (target <= 2x)\n`,
);
process.stdout.write(
  `till products list --json / bare ky GET  ${(m["till products list --json"]! / m["bare ky GET"]!).toFixed(2)}x\n`,
);
