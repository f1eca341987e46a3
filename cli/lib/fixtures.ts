// Fixtures: a JSON list of API requests run in order, each able to use values from the answers
// before it with `${name:path}` (e.g. `${product:id}`, `${order:items.0.subscription_id}`), as
// Stripe's fixtures do. `till fixtures run` reads them from a file; `till trigger` is built on them.
// Built-ins: `${.random:hex}` (8 random hex characters), `${.env:NAME}`, and in a `find` query
// `${.params:path}` (the fixture's own params, after overrides). A GET with `wait_for` is repeated
// until the answer has that value at that path: work the server does in the background (a benefit
// grant) has happened before the next request.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { ApiClient, Query } from "./api.ts";
import { AbortError, EXIT } from "./errors.ts";

const fixtureSchema = z.object({
  name: z.string().regex(/^[A-Za-z_][\w-]*$/, "letters, digits, _ and -"),
  method: z
    .string()
    .transform((m) => m.toLowerCase())
    .pipe(z.enum(["get", "post", "patch", "delete"]))
    .default("post"),
  path: z.string().startsWith("/"),
  params: z.record(z.string(), z.unknown()).default({}),
  /** Reuse an existing object instead of creating one: list `path` with `query`, take the first
   * item whose `match` paths equal the params'. */
  find: z
    .object({
      query: z.record(z.string(), z.unknown()).default({}),
      match: z.array(z.string()),
    })
    .optional(),
  wait_for: z
    .object({
      path: z.string().min(1),
      equals: z.unknown(),
      timeout_ms: z.number().int().min(1).max(600_000).optional(),
    })
    .optional(),
});
export type Fixture = z.output<typeof fixtureSchema>;

export const fixtureFileSchema = z.object({
  _meta: z.object({ template_version: z.number().optional() }).passthrough().optional(),
  fixtures: z.array(fixtureSchema).min(1),
});

export interface FixtureResult {
  name: string;
  method: string;
  path: string;
  reused: boolean;
  response: unknown;
}

export function parseFixtureFile(raw: unknown, source: string): Fixture[] {
  const parsed = fixtureFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AbortError(`${source}: ${issue.path.join(".") || "file"}: ${issue.message}.`, {
      hint: 'Expected {"fixtures": [{"name", "method", "path", "params"}, …]}.',
      exitCode: EXIT.usage,
    });
  }
  return parsed.data.fixtures;
}

const POLL_MS = 250;

/** GETs until the answer holds `equals` at `path`; the last answer, or an error at the timeout. */
async function waitFor(
  api: ApiClient,
  path: string,
  params: Query,
  until: { path: string; equals?: unknown; timeout_ms?: number | undefined },
  where: string,
): Promise<unknown> {
  const deadline = Date.now() + (until.timeout_ms ?? 30_000);
  for (;;) {
    const response = await api.get(path, params);
    if (JSON.stringify(pick(response, until.path)) === JSON.stringify(until.equals))
      return response;
    if (Date.now() > deadline)
      throw new AbortError(
        `${where}: ${path} did not show ${until.path} = ${JSON.stringify(until.equals)} in ${until.timeout_ms ?? 30_000} ms.`,
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Reads a dot path (`items.0.id`) out of a JSON value. */
export function pick(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const key of path.split(".").filter(Boolean)) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Writes `value` at a dot path, creating objects (or arrays for numeric keys) on the way. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let cur: Record<string, unknown> = target;
  keys.forEach((key, i) => {
    if (i === keys.length - 1) {
      cur[key] = value;
      return;
    }
    if (cur[key] === null || typeof cur[key] !== "object")
      cur[key] = /^\d+$/.test(keys[i + 1]!) ? [] : {};
    cur = cur[key] as Record<string, unknown>;
  });
}

const REF = /\$\{([.\w-]+):([\w.-]+)\}/g;

function resolve(value: unknown, answers: Map<string, unknown>, where: string): unknown {
  if (typeof value === "string") {
    const whole = /^\$\{([.\w-]+):([\w.-]+)\}$/.exec(value);
    // A string that is one reference keeps the referenced value's type (a number stays a number).
    if (whole) return lookup(whole[1]!, whole[2]!, answers, where);
    return value.replace(REF, (_, name: string, path: string) =>
      String(lookup(name, path, answers, where)),
    );
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, answers, where));
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, resolve(v, answers, where)]),
    );
  return value;
}

function lookup(name: string, path: string, answers: Map<string, unknown>, where: string): unknown {
  if (name === ".random") return randomBytes(4).toString("hex");
  if (name === ".env") return process.env[path] ?? "";
  if (!answers.has(name))
    throw new AbortError(`${where}: \${${name}:${path}} refers to no earlier fixture "${name}".`, {
      exitCode: EXIT.usage,
    });
  const found = pick(answers.get(name), path);
  if (found === undefined)
    throw new AbortError(`${where}: \${${name}:${path}}: "${name}" has no ${path}.`);
  return found;
}

/** Runs fixtures in order; each answer is kept under its name for later references. */
export async function runFixtures(
  api: ApiClient,
  fixtures: Fixture[],
  onResult: (r: FixtureResult) => void = () => {},
): Promise<Map<string, unknown>> {
  const answers = new Map<string, unknown>();
  for (const f of fixtures) {
    const where = `fixture "${f.name}"`;
    const path = resolve(f.path, answers, where) as string;
    const params = resolve(f.params, answers, where) as Record<string, unknown>;
    let response: unknown;
    let reused = false;
    if (f.find) {
      // The query may use the request's own (overridden) params: `${.params:name}`.
      const own = new Map(answers).set(".params", params);
      const query = resolve(f.find.query, own, where) as Query;
      const page = await api.get<{ items: unknown[] }>(path, { ...query, limit: 100 });
      response = page.items.find((item) =>
        f.find!.match.every(
          (m) => JSON.stringify(pick(item, m)) === JSON.stringify(pick(params, m)),
        ),
      );
      reused = response !== undefined;
    }
    const method = f.method;
    if (!reused) {
      if (method === "get" && f.wait_for)
        response = await waitFor(api, path, params as Query, f.wait_for, where);
      else if (method === "get") response = await api.get(path, params as Query);
      else if (method === "delete") response = await api.delete(path);
      else if (method === "patch") response = await api.patch(path, params);
      else response = await api.post(path, params);
    }
    answers.set(f.name, response);
    onResult({ name: f.name, method, path, reused, response });
  }
  return answers;
}
