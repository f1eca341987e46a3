// The Biome plugins of `npm run lint` refuse the two casts that would undo a brand: `as OrgScope`
// outside server/lib/org-scope.ts and `as Tx` outside db/client.ts. Checked in a throwaway tree
// with the project's plugin files, so no probe lands among the sources other tests walk.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/process.ts";

const root = join(import.meta.dirname, "..", "..");
const biome = join(root, "node_modules", ".bin", "biome");
const plugins = ["./lint/org-scope-cast.grit", "./lint/tx-cast.grit"];

async function lint(text: string) {
  const dir = tempDir("till-cast-rules-");
  writeFileSync(
    join(dir, "biome.json"),
    JSON.stringify({ plugins: plugins.map((p) => join(root, p)) }),
  );
  mkdirSync(join(dir, "server", "lib"), { recursive: true });
  const probe = join(dir, "server", "lib", "probe.ts");
  writeFileSync(probe, text);
  return execa(biome, ["lint", probe], { cwd: dir, reject: false });
}

describe("cast rules", () => {
  it("are the plugins the project's Biome configuration loads", () => {
    const config = JSON.parse(readFileSync(join(root, "biome.json"), "utf8"));
    expect(config.plugins).toEqual(plugins);
  });

  it("refuse a forged OrgScope and a forged Tx, and pass the honest file", {
    timeout: 60_000,
  }, async () => {
    const forged = await lint(
      [
        `import type { Db, Tx } from "../../db/client.ts";`,
        `import type { OrgScope } from "./org-scope.ts";`,
        `export const scope = (ids: string[]) => ids as unknown as OrgScope;`,
        `export const tx = (db: Db) => db as unknown as Tx;`,
        "",
      ].join("\n"),
    );
    const out = forged.stdout + forged.stderr;
    expect(forged.exitCode).not.toBe(0);
    expect(out).toContain("An OrgScope comes only from scopeOfCaller");
    expect(out).toContain("A Tx comes only from inTransaction");

    const honest = await lint(
      [
        `import { type Db, inTransaction } from "../../db/client.ts";`,
        `export const run = (db: Db) => inTransaction(db, async (tx) => tx);`,
        "",
      ].join("\n"),
    );
    expect(honest.stdout + honest.stderr).not.toContain("comes only from");
    expect(honest.exitCode).toBe(0);
  });
});
