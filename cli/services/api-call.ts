// The request data of `till api`: key=value fields (dots nest, numbers and booleans keep their
// type), or a whole JSON body from a file, stdin or the argument itself.
import { readFileSync } from "node:fs";
import { AbortError, EXIT } from "../lib/errors.ts";
import { setPath } from "../lib/fixtures.ts";

export function buildRequestData(items: string[]): Record<string, unknown> {
  let body: Record<string, unknown> = {};
  for (const item of items) {
    if (item.startsWith("@") || item.startsWith("{")) {
      const source = item.startsWith("@") ? item.slice(1) : null;
      const text = source === null ? item : readFileSync(source === "-" ? 0 : source, "utf8");
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (err) {
        throw new AbortError(`${source ?? "--data"} is not valid JSON: ${(err as Error).message}`, {
          exitCode: EXIT.usage,
        });
      }
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
        throw new AbortError(`${source ?? "--data"} must hold a JSON object.`, {
          exitCode: EXIT.usage,
        });
      body = { ...body, ...(parsed as Record<string, unknown>) };
      continue;
    }
    const eq = item.indexOf("=");
    if (eq <= 0)
      throw new AbortError(`-d expects key=value, @file.json or a JSON object, got "${item}".`, {
        exitCode: EXIT.usage,
      });
    const raw = item.slice(eq + 1);
    const value: unknown =
      raw === "true" || raw === "false"
        ? raw === "true"
        : raw === "null"
          ? null
          : /^-?\d+(\.\d+)?$/.test(raw)
            ? Number(raw)
            : raw;
    setPath(body, item.slice(0, eq), value);
  }
  return body;
}
