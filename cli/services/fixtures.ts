// `till fixtures run <file>`: reads a fixtures file and runs its requests in order.
import { readFileSync } from "node:fs";
import { organizationParam, type CommandContext } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";
import { parseFixtureFile, pick, runFixtures, type FixtureResult } from "../lib/fixtures.ts";
import { organizationFilling } from "./api-call.ts";

export async function runFixturesFile(
  ctx: CommandContext,
  file: string,
  org?: string,
): Promise<void> {
  const text = readFileSync(file === "-" ? 0 : file, "utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new AbortError(`${file} is not valid JSON: ${(err as Error).message}`, {
      exitCode: EXIT.usage,
    });
  }
  const fixtures = parseFixtureFile(raw, file);
  const results: FixtureResult[] = [];
  // A request that needs organization_id (a user token with several) gets --org or the profile's.
  const api = organizationFilling(
    ctx.api(),
    () => organizationParam(ctx, org, { announce: true }),
    org !== undefined,
  );
  await runFixtures(api, fixtures, (r) => {
    results.push(r);
    if (!ctx.out.json)
      process.stdout.write(
        `${r.reused ? "reused" : `${r.method.toUpperCase()} ${r.path}`} → ${r.name}${pick(r.response, "id") ? ` ${String(pick(r.response, "id"))}` : ""}\n`,
      );
  });
  if (ctx.out.json)
    ctx.out.result(
      {
        fixtures: results.map((r) => ({
          name: r.name,
          method: r.method,
          path: r.path,
          response: r.response,
        })),
      },
      () => "",
    );
}
