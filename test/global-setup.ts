// Builds the migrated template once per run and hands its location to every test file.
import { execFileSync } from "node:child_process";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildTemplate, dropTemplate, type TemplateInfo } from "./helpers/template.ts";

declare module "vitest" {
  export interface ProvidedContext {
    template: TemplateInfo;
    /**
     * The directory of `.ci/replica.sh`'s clusters (TEST_REPLICA_DIR), whose replicas a test may
     * stop and start again with `.ci/replica.sh node`; null when there is none.
     */
    replicaCluster: string | null;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The config module is the only reader of process.env in the product; the test harness is not
  // product code, and TEST_DATABASE_URL is its own switch.
  // Browser tests need the built pages: web/build.ts builds them unless they match their sources.
  const root = path.join(import.meta.dirname, "..");
  execFileSync(process.execPath, [path.join(root, "web", "build.ts")], {
    cwd: root,
    stdio: "inherit",
  });
  const info = await buildTemplate(
    process.env.TEST_DATABASE_URL || undefined,
    process.env.TEST_POOLER_URL || undefined,
    // One or more replicas of that server, comma-separated, as DATABASE_READ_URL takes them.
    process.env.TEST_READ_URL?.split(",").filter((u) => u !== ""),
  );
  project.provide("template", info);
  project.provide("replicaCluster", process.env.TEST_REPLICA_DIR || null);
  return () => dropTemplate(info);
}
