// Builds the migrated template once per run and hands its location to every test file.
import type { TestProject } from "vitest/node";
import { buildTemplate, dropTemplate, type TemplateInfo } from "./helpers/template.ts";

declare module "vitest" {
  export interface ProvidedContext {
    template: TemplateInfo;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The config module is the only reader of process.env in the product; the test harness is not
  // product code, and TEST_DATABASE_URL is its own switch.
  const info = await buildTemplate(process.env.TEST_DATABASE_URL || undefined);
  project.provide("template", info);
  return () => dropTemplate(info);
}
