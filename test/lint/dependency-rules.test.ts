// The dependency rules of `npm run lint:deps` hold on the code as written. dependency-cruiser warns
// that it finds no TypeScript compiler it supports (it knows TypeScript < 7); it parses with swc
// instead (`"parser": "swc"`), and these checks show that costs nothing: a cycle made only of type
// imports and a foreign repository import are both caught in a throwaway tree, and every source
// file of the project is among the modules the real run reads.
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/process.ts";

const root = join(import.meta.dirname, "..", "..");
// Run by this process's Node: the machine's own may be older than dependency-cruiser supports.
const depcruise = join(root, "node_modules", "dependency-cruiser", "bin", "dependency-cruiser.mjs");
const config = join(root, ".dependency-cruiser.json");

function write(dir: string, path: string, text: string) {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), text);
}

describe("dependency rules", () => {
  it("catch a type-only cycle and another module's repository in TypeScript sources", {
    timeout: 60_000,
  }, async () => {
    const dir = tempDir("till-depcruise-");
    write(
      dir,
      "tsconfig.json",
      JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true } }),
    );
    write(
      dir,
      "server/lib/a.ts",
      `import type { B } from "./b.ts";\nexport interface A { b: B | null }\n`,
    );
    write(
      dir,
      "server/lib/b.ts",
      `import type { A } from "./a.ts";\nexport type B = { a: A };\nexport const b = { n: 1 } satisfies object;\n`,
    );
    write(
      dir,
      "server/modules/orders/repository.ts",
      `export const rows = (n: number): number[] => [n];\n`,
    );
    write(
      dir,
      "server/modules/refunds/service.ts",
      `import { rows } from "../orders/repository.ts";\nexport const f = (): number[] => rows(1 as number);\n`,
    );
    const run = await execa(
      process.execPath,
      [depcruise, "--config", config, "--output-type", "err", "server"],
      {
        cwd: dir,
        reject: false,
      },
    );
    expect(run.exitCode, run.stderr).not.toBe(0);
    expect(run.stdout).toMatch(/no-cycle: server\/lib\/a\.ts/);
    expect(run.stdout).toMatch(/no-foreign-repository: server\/modules\/refunds\/service\.ts/);
  });

  it("read every source file of the project", { timeout: 120_000 }, async () => {
    const dirs = ["server", "cli", "db", "shared"];
    const run = await execa(
      process.execPath,
      [depcruise, "--config", config, "--output-type", "json", ...dirs],
      {
        cwd: root,
      },
    );
    const cruised = new Set(
      (JSON.parse(run.stdout) as { modules: { source: string }[] }).modules.map((m) => m.source),
    );
    const sources: string[] = [];
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.tsx?$/.test(name)) sources.push(relative(root, p));
      }
    };
    for (const d of dirs) walk(join(root, d));
    expect(sources.length).toBeGreaterThan(300);
    expect(sources.filter((s) => !cruised.has(s))).toEqual([]);
  });
});
